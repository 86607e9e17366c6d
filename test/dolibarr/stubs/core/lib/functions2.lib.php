<?php
/* Stand-in: dol_set_user_param of Dolibarr's functions2.lib.php (llx_user_param, and the user's conf). */
function dol_set_user_param($db, $conf, &$user, $tab)
{
	if (count($tab) < 1) {
		return -1;
	}
	foreach ($tab as $key => $value) {
		$db->query("DELETE FROM llx_user_param WHERE fk_user = ".((int) $user->id)." AND entity = ".((int) $conf->entity)." AND param = '".$db->escape($key)."'");
		if ($value) {
			$db->query("INSERT INTO llx_user_param (fk_user, entity, param, value) VALUES (".((int) $user->id).", ".((int) $conf->entity).", '".$db->escape($key)."', '".$db->escape($value)."')");
			$user->conf->$key = $value;
		} else {
			unset($user->conf->$key);
		}
	}
	return 1;
}
