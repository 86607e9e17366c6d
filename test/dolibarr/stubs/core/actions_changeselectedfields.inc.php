<?php
/* Stand-in for Dolibarr's actions_changeselectedfields.inc.php: the column chooser's choice saved
 * as the user's parameter MAIN_SELECTEDFIELDS_<contextpage> (dol_set_user_param). */
if (GETPOST('formfilteraction', 'alphanohtml') == 'listafterchangingselectedfields') {
	$tabparam = array();
	$varpage = empty($contextpage) ? $_SERVER['PHP_SELF'] : $contextpage;
	$tabparam['MAIN_SELECTEDFIELDS_'.$varpage] = GETPOST('selectedfields') ? GETPOST('selectedfields') : '';
	include_once DOL_DOCUMENT_ROOT.'/core/lib/functions2.lib.php';
	$result = dol_set_user_param($db, $conf, $user, $tabparam);
}
