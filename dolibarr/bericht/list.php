<?php
/* fieldreport: list of the reports the user may see, as Dolibarr's own lists are made.
 *
 * The filters are the row of inputs in the list's title (ref and title, object and its type,
 * customer's order number, customer, status, technician, creation date range), Dolibarr's
 * search_all searches them all; the column chooser saves the user's columns as Dolibarr saves
 * them (MAIN_SELECTEDFIELDS_berichtlist); paging fetches one row more than a page, as Dolibarr
 * does, so the navigation knows there is a next page. Mass actions: download the selected final
 * PDFs (one ZIP file), delete the selected drafts (with the module's delete right). Each report's
 * ref links to the "Berichte" tab of its object, the object's ref to its card.
 *
 * This program is free software: GNU General Public License, version 3 or later.
 */

// Load Dolibarr environment (module in htdocs/custom/bericht or htdocs/bericht, also as a symbolic link there)
$res = 0;
if (!$res && !empty($_SERVER['CONTEXT_DOCUMENT_ROOT'])) {
	$res = @include $_SERVER['CONTEXT_DOCUMENT_ROOT'].'/main.inc.php';
}
// The web root as the web server names the script: a link is not followed, as '..' in a path would.
$script = empty($_SERVER['SCRIPT_FILENAME']) ? '' : $_SERVER['SCRIPT_FILENAME'];
if (!$res && $script !== '' && file_exists(dirname($script, 3).'/main.inc.php')) {
	$res = @include dirname($script, 3).'/main.inc.php';
}
if (!$res && $script !== '' && file_exists(dirname($script, 2).'/main.inc.php')) {
	$res = @include dirname($script, 2).'/main.inc.php';
}
if (!$res && file_exists(__DIR__.'/../../main.inc.php')) {
	$res = @include __DIR__.'/../../main.inc.php';
}
if (!$res && file_exists(__DIR__.'/../main.inc.php')) {
	$res = @include __DIR__.'/../main.inc.php';
}
if (!$res) {
	die('Include of main fails');
}
require_once __DIR__.'/class/berichtreports.class.php';
require_once __DIR__.'/lib/bericht.lib.php';
require_once DOL_DOCUMENT_ROOT.'/core/lib/files.lib.php';
require_once DOL_DOCUMENT_ROOT.'/core/class/html.form.class.php';
require_once DOL_DOCUMENT_ROOT.'/societe/class/societe.class.php';

/**
 * @var Conf $conf
 * @var DoliDB $db
 * @var HookManager $hookmanager
 * @var Translate $langs
 * @var User $user
 */

$langs->loadLangs(array('bericht@bericht', 'orders', 'bills', 'propal', 'interventions', 'companies'));

if (!isModEnabled('bericht') || !$user->hasRight('bericht', 'read')) {
	accessforbidden();
}

$action = GETPOST('action', 'aZ09');
$massaction = GETPOST('massaction', 'alpha');
$confirm = GETPOST('confirm', 'alpha');
$toselect = GETPOST('toselect', 'array');
$contextpage = 'berichtlist';
$optioncss = GETPOST('optioncss', 'aZ');

// Search and filters
$search_all = trim(GETPOST('search_all', 'alphanohtml'));
$search_ref = GETPOST('search_ref', 'alphanohtml');
$search_parent = GETPOST('search_parent', 'alphanohtml');
$search_ref_client = GETPOST('search_ref_client', 'alphanohtml');
$search_societe = GETPOST('search_societe', 'alphanohtml');
$search_status = GETPOST('search_status', 'alpha');
$search_element = GETPOST('search_element', 'aZ09');
$search_user = GETPOSTINT('search_user');
$search_date_startday = GETPOSTINT('search_date_startday');
$search_date_startmonth = GETPOSTINT('search_date_startmonth');
$search_date_startyear = GETPOSTINT('search_date_startyear');
$search_date_endday = GETPOSTINT('search_date_endday');
$search_date_endmonth = GETPOSTINT('search_date_endmonth');
$search_date_endyear = GETPOSTINT('search_date_endyear');

// Paging and sorting
$limit = GETPOSTINT('limit') ? GETPOSTINT('limit') : $conf->liste_limit;
$sortfield = GETPOST('sortfield', 'aZ09comma');
$sortorder = GETPOST('sortorder', 'aZ09comma');
$page = GETPOSTISSET('pageplusone') ? (GETPOSTINT('pageplusone') - 1) : GETPOSTINT('page');
if (empty($page) || $page < 0 || GETPOST('button_search', 'alpha') || GETPOST('button_removefilter', 'alpha')) {
	$page = 0;
}
if (!isset(BerichtReports::SORTFIELDS[$sortfield])) {
	$sortfield = 'b.datec';
}
$sortorder = (strtoupper($sortorder) === 'ASC' ? 'ASC' : 'DESC');

$hookmanager->initHooks(array($contextpage));
$object = null;

$permissiontoread = $user->hasRight('bericht', 'read');
$permissiontodelete = $user->hasRight('bericht', 'delete');

// The columns, as Dolibarr's lists declare them; the user's choice replaces 'checked'.
$arrayfields = array(
	'b.ref' => array('label' => 'BerichtRef', 'checked' => '1', 'position' => 10),
	'b.title' => array('label' => 'BerichtTitle', 'checked' => '0', 'position' => 20),
	'parent_ref' => array('label' => 'BerichtObject', 'checked' => '1', 'position' => 30),
	'parent_ref_client' => array('label' => 'RefCustomer', 'checked' => '1', 'position' => 40),
	's.nom' => array('label' => 'ThirdParty', 'checked' => '1', 'position' => 50),
	'u.lastname' => array('label' => 'BerichtAuthor', 'checked' => '1', 'position' => 60),
	'b.datec' => array('label' => 'DateCreation', 'checked' => '1', 'position' => 70),
	'b.tms' => array('label' => 'DateModificationShort', 'checked' => '0', 'position' => 80),
	'nbpages' => array('label' => 'BerichtPages', 'checked' => '0', 'position' => 90),
	'signatures' => array('label' => 'BerichtSignatures', 'checked' => '0', 'position' => 100),
	'mail' => array('label' => 'BerichtMail', 'checked' => '1', 'position' => 110),
	'pdf' => array('label' => 'BerichtPdf', 'checked' => '1', 'position' => 120),
	'b.status' => array('label' => 'Status', 'checked' => '1', 'position' => 1000),
);


/*
 * Actions
 */

if (GETPOST('cancel', 'alpha')) {
	$action = 'list';
	$massaction = '';
}
if (!GETPOST('confirmmassaction', 'alpha') && $massaction != 'predelete') {
	$massaction = '';
}

$parameters = array('arrayfields' => &$arrayfields);
$reshook = $hookmanager->executeHooks('doActions', $parameters, $object, $action);
if ($reshook < 0) {
	setEventMessages($hookmanager->error, $hookmanager->errors, 'errors');
}

$reports = new BerichtReports($db, $conf->entity);

if (empty($reshook)) {
	// The column chooser (saved into llx_user_param as Dolibarr saves it).
	include DOL_DOCUMENT_ROOT.'/core/actions_changeselectedfields.inc.php';

	if (GETPOST('button_removefilter_x', 'alpha') || GETPOST('button_removefilter.x', 'alpha') || GETPOST('button_removefilter', 'alpha')) {
		$search_all = $search_ref = $search_parent = $search_ref_client = $search_societe = $search_status = $search_element = '';
		$search_user = 0;
		$search_date_startday = $search_date_startmonth = $search_date_startyear = '';
		$search_date_endday = $search_date_endmonth = $search_date_endyear = '';
		$toselect = array();
	}

	// Mass action: the selected final reports' PDFs in one ZIP file, sent at once.
	if ($massaction == 'bericht_pdfs' && $permissiontoread) {
		$rows = $reports->fetchSelected($user, $toselect);
		$files = array();
		foreach (is_array($rows) ? $rows : array() as $row) {
			$file = BerichtReports::pdfFile($row);
			if ($file !== '' && dol_is_file($conf->bericht->dir_output.'/'.$file)) {
				$files[basename($file)] = $conf->bericht->dir_output.'/'.$file;
			}
		}
		if (!$files) {
			setEventMessages($langs->trans('BerichtNoFinalSelected'), null, 'warnings');
		} elseif (!class_exists('ZipArchive')) {
			setEventMessages($langs->trans('BerichtZipMissing'), null, 'errors');
		} else {
			$zipfile = tempnam(sys_get_temp_dir(), 'bericht');
			$zip = new ZipArchive();
			if ($zip->open($zipfile, ZipArchive::OVERWRITE) === true) {
				foreach ($files as $name => $path) {
					$zip->addFile($path, $name);
				}
				$zip->close();
				header('Content-Type: application/zip');
				header('Content-Disposition: attachment; filename="'.dol_sanitizeFileName($langs->transnoentitiesnoconv('BerichtZipName').'-'.dol_print_date(dol_now(), 'dayhourlog')).'.zip"');
				header('Content-Length: '.filesize($zipfile));
				readfile($zipfile);
				unlink($zipfile);
				$db->close();
				exit;
			}
			setEventMessages($langs->trans('BerichtZipMissing'), null, 'errors');
		}
		$massaction = '';
	}

	// Mass action: delete the selected drafts (confirmed with Dolibarr's confirm box). Final reports stay.
	if ($action == 'delete' && $confirm == 'yes' && $permissiontodelete) {
		$rows = $reports->fetchSelected($user, $toselect);
		$deleted = array();
		$kept = array();
		$error = 0;
		$db->begin();
		foreach (is_array($rows) ? $rows : array() as $row) {
			$result = ((int) $row->status === 0) ? $reports->deleteDraft($row->rowid) : 0;
			if ($result === -1) {
				$error++;
				break;
			}
			if (is_string($result)) {
				$deleted[] = $result;
			} else {
				$kept[] = $row->ref;
			}
		}
		if ($error) {
			$db->rollback();
			setEventMessages($reports->error, null, 'errors');
		} else {
			$db->commit();
			$reports->deleteDraftFiles($deleted, $conf->bericht->dir_output);
			if ($deleted) {
				setEventMessages($langs->trans('RecordsDeleted', count($deleted)), null, 'mesgs');
			}
			if ($kept) {
				setEventMessages($langs->trans('BerichtNotDeleted', implode(', ', $kept)), null, 'warnings');
			}
			if (!$rows) {
				setEventMessages($langs->trans('NoRecordSelected'), null, 'warnings');
			}
		}
		$toselect = array();
		$action = 'list';
	}
}

if (!in_array($search_status, array('', '0', '1'), true)) {
	$search_status = '';
}
if (!isset(BerichtReports::ELEMENTS[$search_element])) {
	$search_element = '';
}
// The creation date range in the user's time zone, as the day selectors give it.
$date_start = dol_mktime(0, 0, 0, (int) $search_date_startmonth, (int) $search_date_startday, (int) $search_date_startyear, 'tzuserrel');
$date_end = dol_mktime(23, 59, 59, (int) $search_date_endmonth, (int) $search_date_endday, (int) $search_date_endyear, 'tzuserrel');

$filters = array('status' => $search_status, 'element' => $search_element, 'user' => $search_user, 'societe' => $search_societe,
	'ref' => $search_ref, 'parent' => $search_parent, 'ref_client' => $search_ref_client, 'all' => $search_all,
	'date_start' => $date_start, 'date_end' => $date_end);
$offset = $limit * $page;
$result = $reports->fetchList($user, $filters, $sortfield, $sortorder, $limit, $offset);
if (!is_array($result)) {
	dol_print_error($db, $reports->error);
	exit;
}
// A page beyond the end (filters changed): the first one, as Dolibarr's lists do.
if ($offset > 0 && $offset >= $result['total']) {
	$page = 0;
	$offset = 0;
	$result = $reports->fetchList($user, $filters, $sortfield, $sortorder, $limit, 0);
	if (!is_array($result)) {
		dol_print_error($db, $reports->error);
		exit;
	}
}
$rows = $result['rows'];
$nbtotalofrecords = $result['total'];
$num = count($rows);


/*
 * View
 */

$form = new Form($db);
$title = $langs->trans('BerichtList');
llxHeader('', $title, '', '', 0, 0, '', '', '', 'bodyforlist mod-bericht page-list');

$arrayofselected = is_array($toselect) ? $toselect : array();

$param = '';
if ($limit > 0 && $limit != $conf->liste_limit) {
	$param .= '&limit='.((int) $limit);
}
foreach (array('search_all' => $search_all, 'search_ref' => $search_ref, 'search_parent' => $search_parent, 'search_ref_client' => $search_ref_client,
	'search_societe' => $search_societe, 'search_status' => $search_status, 'search_element' => $search_element) as $key => $value) {
	if ($value !== '') {
		$param .= '&'.$key.'='.urlencode($value);
	}
}
if ($search_user > 0) {
	$param .= '&search_user='.((int) $search_user);
}
foreach (array('search_date_startday' => $search_date_startday, 'search_date_startmonth' => $search_date_startmonth, 'search_date_startyear' => $search_date_startyear,
	'search_date_endday' => $search_date_endday, 'search_date_endmonth' => $search_date_endmonth, 'search_date_endyear' => $search_date_endyear) as $key => $value) {
	if ((int) $value > 0) {
		$param .= '&'.$key.'='.((int) $value);
	}
}
if ($optioncss != '') {
	$param .= '&optioncss='.urlencode($optioncss);
}

// Mass actions
$arrayofmassactions = array(
	'bericht_pdfs' => img_picto('', 'pdf', 'class="pictofixedwidth"').$langs->trans('BerichtMassDownloadPdfs'),
);
if ($permissiontodelete) {
	$arrayofmassactions['predelete'] = img_picto('', 'delete', 'class="pictofixedwidth"').$langs->trans('BerichtMassDeleteDrafts');
}
if (GETPOSTINT('nomassaction') || in_array($massaction, array('predelete'))) {
	$arrayofmassactions = array();
}
$massactionbutton = $form->selectMassAction('', $arrayofmassactions);

print '<form method="POST" id="searchFormList" action="'.$_SERVER['PHP_SELF'].'">'."\n";
if ($optioncss != '') {
	print '<input type="hidden" name="optioncss" value="'.dol_escape_htmltag($optioncss).'">';
}
print '<input type="hidden" name="token" value="'.newToken().'">';
print '<input type="hidden" name="formfilteraction" id="formfilteraction" value="list">';
print '<input type="hidden" name="action" value="list">';
print '<input type="hidden" name="sortfield" value="'.dol_escape_htmltag($sortfield).'">';
print '<input type="hidden" name="sortorder" value="'.dol_escape_htmltag($sortorder).'">';
print '<input type="hidden" name="page" value="'.((int) $page).'">';
print '<input type="hidden" name="contextpage" value="'.$contextpage.'">';
print '<input type="hidden" name="page_y" value="">';

print_barre_liste($title, $page, $_SERVER['PHP_SELF'], $param, $sortfield, $sortorder, $massactionbutton, $num, $nbtotalofrecords, 'technic', 0, '', '', $limit, 0, 0, 1);

if ($massaction == 'predelete') {
	print $form->formconfirm($_SERVER['PHP_SELF'], $langs->trans('ConfirmMassDraftDeletion'), $langs->trans('BerichtConfirmMassDeleteDrafts', count($arrayofselected)), 'delete', null, '', 0, 200, 500, 1);
}
if ($search_all) {
	print '<input type="hidden" name="search_all" value="'.dol_escape_htmltag($search_all).'">';
	print '<div class="divsearchfieldfilter">'.$langs->trans('FilterOnInto', dol_escape_htmltag($search_all)).$langs->trans('BerichtSearchAllFields').'</div>'."\n";
}

$varpage = $contextpage;
$htmlofselectarray = $form->multiSelectArrayWithCheckbox('selectedfields', $arrayfields, $varpage, getDolGlobalString('MAIN_CHECKBOX_LEFT_COLUMN'));
$selectedfields = $htmlofselectarray.(count($arrayofmassactions) ? $form->showCheckAddButtons('checkforselect', 1) : '');
$checked = function ($key) use ($arrayfields) {
	return !empty($arrayfields[$key]['checked']);
};
$left = getDolGlobalString('MAIN_CHECKBOX_LEFT_COLUMN');

print '<div class="div-table-responsive">';
print '<table class="tagtable nobottomiftotal liste" id="bericht-list">'."\n";

// The filters, in the list's title
print '<tr class="liste_titre_filter">';
if ($left) {
	print '<td class="liste_titre center maxwidthsearch">'.$form->showFilterButtons('left').'</td>';
}
if ($checked('b.ref')) {
	print '<td class="liste_titre"><input class="flat maxwidth75" type="text" name="search_ref" value="'.dol_escape_htmltag($search_ref).'"></td>';
}
if ($checked('b.title')) {
	print '<td class="liste_titre"></td>';
}
if ($checked('parent_ref')) {
	$types = array();
	foreach (BerichtReports::ELEMENTS as $type => $e) {
		$types[$type] = $langs->trans($e['label']);
	}
	print '<td class="liste_titre nowraponall">';
	print '<input class="flat maxwidth75" type="text" name="search_parent" value="'.dol_escape_htmltag($search_parent).'"> ';
	print $form->selectarray('search_element', $types, $search_element, 1, 0, 0, '', 0, 0, 0, '', 'maxwidth75', 1);
	print '</td>';
}
if ($checked('parent_ref_client')) {
	print '<td class="liste_titre"><input class="flat maxwidth75" type="text" name="search_ref_client" value="'.dol_escape_htmltag($search_ref_client).'"></td>';
}
if ($checked('s.nom')) {
	print '<td class="liste_titre"><input class="flat maxwidth75" type="text" name="search_societe" value="'.dol_escape_htmltag($search_societe).'"></td>';
}
if ($checked('u.lastname')) {
	print '<td class="liste_titre">'.$form->selectarray('search_user', $reports->authors($user), $search_user, 1, 0, 0, '', 0, 0, 0, '', 'maxwidth75', 1).'</td>';
}
if ($checked('b.datec')) {
	print '<td class="liste_titre center">';
	print '<div class="nowrapfordate">'.$form->selectDate($date_start ? $date_start : -1, 'search_date_start', 0, 0, 1, '', 1, 0, 0, '', '', '', '', 1, '', $langs->trans('From'), 'tzuserrel').'</div>';
	print '<div class="nowrapfordate">'.$form->selectDate($date_end ? $date_end : -1, 'search_date_end', 0, 0, 1, '', 1, 0, 0, '', '', '', '', 1, '', $langs->trans('to'), 'tzuserrel').'</div>';
	print '</td>';
}
foreach (array('b.tms', 'nbpages', 'signatures', 'mail', 'pdf') as $key) {
	if ($checked($key)) {
		print '<td class="liste_titre"></td>';
	}
}
if ($checked('b.status')) {
	$statuses = array('0' => $langs->trans('BerichtStatusDraft'), '1' => $langs->trans('BerichtStatusFinal'));
	print '<td class="liste_titre center parentonrightofpage">'.$form->selectarray('search_status', $statuses, $search_status, 1, 0, 0, '', 0, 0, 0, '', 'search_status width100 onrightofpage', 1).'</td>';
}
if (!$left) {
	print '<td class="liste_titre center maxwidthsearch">'.$form->showFilterButtons().'</td>';
}
print '</tr>'."\n";

// Titles
print '<tr class="liste_titre">';
if ($left) {
	print_liste_field_titre($selectedfields, $_SERVER['PHP_SELF'], '', '', '', '', $sortfield, $sortorder, 'center maxwidthsearch ');
}
$titles = array(
	'b.ref' => array('b.ref', ''), 'b.title' => array('b.title', ''), 'parent_ref' => array('parent_ref', ''), 'parent_ref_client' => array('parent_ref_client', ''),
	's.nom' => array('s.nom', ''), 'u.lastname' => array('u.lastname', ''), 'b.datec' => array('b.datec', 'center '), 'b.tms' => array('b.tms', 'center '),
	'nbpages' => array('', 'right '), 'signatures' => array('', ''), 'mail' => array('', ''), 'pdf' => array('', ''), 'b.status' => array('b.status', 'center '),
);
foreach ($titles as $key => $t) {
	if ($checked($key)) {
		print_liste_field_titre($arrayfields[$key]['label'], $_SERVER['PHP_SELF'], $t[0], '', $param, '', $sortfield, $sortorder, $t[1]);
	}
}
if (!$left) {
	print_liste_field_titre($selectedfields, $_SERVER['PHP_SELF'], '', '', '', '', $sortfield, $sortorder, 'center maxwidthsearch ');
}
print '</tr>'."\n";

$companystatic = new Societe($db);
$parents = array();
$nbfield = 1;
foreach ($arrayfields as $val) {
	$nbfield += (!empty($val['checked']) ? 1 : 0);
}
$imaxinloop = ($limit ? min($num, $limit) : $num);
for ($i = 0; $i < $imaxinloop; $i++) {
	$row = $rows[$i];
	$checkbox = '<td class="nowrap center">';
	if ($massactionbutton || $massaction) {
		$selected = in_array($row->rowid, $arrayofselected);
		$checkbox .= '<input id="cb'.((int) $row->rowid).'" class="flat checkforselect" type="checkbox" name="toselect[]" value="'.((int) $row->rowid).'"'.($selected ? ' checked="checked"' : '').'>';
	}
	$checkbox .= '</td>';

	print '<tr class="oddeven" data-rowid="'.((int) $row->rowid).'">';
	if ($left) {
		print $checkbox;
	}
	if ($checked('b.ref')) {
		print '<td class="nowraponall">'.bericht_ref_cell($row, 'tab').'</td>';
	}
	if ($checked('b.title')) {
		print '<td class="tdoverflowmax200" title="'.dol_escape_htmltag($row->title).'">'.dol_escape_htmltag($row->title).'</td>';
	}
	if ($checked('parent_ref')) {
		print '<td class="nowraponall">'.bericht_parent_link($row).'</td>';
	}
	if ($checked('parent_ref_client')) {
		print '<td class="tdoverflowmax100" title="'.dol_escape_htmltag((string) $row->parent_ref_client).'">'.dol_escape_htmltag((string) $row->parent_ref_client).'</td>';
	}
	if ($checked('s.nom')) {
		print '<td class="tdoverflowmax125">';
		if ($row->socid) {
			$companystatic->id = (int) $row->socid;
			$companystatic->name = $row->soc_name;
			$companystatic->client = $row->soc_client;
			$companystatic->status = $row->soc_status;
			print $companystatic->getNomUrl(1, '', 0, 1);
		}
		print '</td>';
	}
	if ($checked('u.lastname')) {
		print '<td class="tdoverflowmax125">'.bericht_author_name($row).'</td>';
	}
	if ($checked('b.datec')) {
		print '<td class="center nowraponall">'.bericht_date($row->datec).'</td>';
	}
	if ($checked('b.tms')) {
		print '<td class="center nowraponall">'.bericht_date($row->tms).'</td>';
	}
	if ($checked('nbpages')) {
		print '<td class="right">'.((int) $row->nbpages).'</td>';
	}
	if ($checked('signatures')) {
		print '<td>'.bericht_signatures_cell($row).'</td>';
	}
	if ($checked('mail')) {
		print '<td>'.bericht_mail_cell($row).'</td>';
	}
	if ($checked('pdf')) {
		print '<td class="nowraponall">'.bericht_pdf_cell($row).'</td>';
	}
	if ($checked('b.status')) {
		print '<td class="center nowraponall">'.bericht_status_badge($row).'</td>';
	}
	if (!$left) {
		print $checkbox;
	}
	print '</tr>'."\n";
}
if ($num == 0) {
	print '<tr class="oddeven"><td colspan="'.$nbfield.'"><span class="opacitymedium">'.$langs->trans('NoRecordFound').'</span></td></tr>';
}

$parameters = array('arrayfields' => $arrayfields);
$reshook = $hookmanager->executeHooks('printFieldListFooter', $parameters, $object, $action);
print $hookmanager->resPrint;

print '</table>'."\n";
print '</div>'."\n";
print '</form>'."\n";

llxFooter();
$db->close();
