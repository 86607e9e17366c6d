<?php
/* fieldreport: list of the reports the user may see, with search and filters.
 *
 * Filters: status, object type, creation date range, technician (author), customer, ref/title.
 * Paging and sorting as Dolibarr's lists. Each row links to the object's card and its
 * "Berichte" tab, and to the final PDF.
 *
 * This program is free software: GNU General Public License, version 3 or later.
 */

// Load Dolibarr environment (module in htdocs/custom/bericht or htdocs/bericht)
$res = 0;
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

/**
 * @var Conf $conf
 * @var DoliDB $db
 * @var HookManager $hookmanager
 * @var Translate $langs
 * @var User $user
 */

$langs->loadLangs(array('bericht@bericht', 'orders', 'bills', 'propal', 'companies'));

if (!isModEnabled('bericht') || !$user->hasRight('bericht', 'read')) {
	accessforbidden();
}

$contextpage = 'berichtlist';
$hookmanager->initHooks(array('berichtlist'));

// Search and filters
$search_text = GETPOST('search_text', 'alphanohtml');
$search_status = GETPOST('search_status', 'alpha');
$search_element = GETPOST('search_element', 'aZ09');
$search_user = GETPOSTINT('search_user');
$search_societe = GETPOST('search_societe', 'alphanohtml');
$search_date_start = GETPOST('search_date_start', 'alpha');
$search_date_end = GETPOST('search_date_end', 'alpha');
if (GETPOST('button_removefilter_x', 'alpha') || GETPOST('button_removefilter.x', 'alpha') || GETPOST('button_removefilter', 'alpha')) {
	$search_text = $search_status = $search_element = $search_societe = $search_date_start = $search_date_end = '';
	$search_user = 0;
}
if (!in_array($search_status, array('', '0', '1'), true)) {
	$search_status = '';
}
if (!isset(BerichtReports::ELEMENTS[$search_element])) {
	$search_element = '';
}

/**
 * A day typed as YYYY-MM-DD (input type=date) as a timestamp in the user's time zone.
 *
 * @param string $day  The day
 * @param bool   $end  The day's last second instead of its first
 * @return int|string  Timestamp, or '' when not a date
 */
function bericht_parse_day($day, $end)
{
	if (!preg_match('/^(\d{4})-(\d{2})-(\d{2})$/', $day, $m) || !checkdate((int) $m[2], (int) $m[3], (int) $m[1])) {
		return '';
	}
	return dol_mktime($end ? 23 : 0, $end ? 59 : 0, $end ? 59 : 0, (int) $m[2], (int) $m[3], (int) $m[1], 'tzuserrel');
}
$date_start = bericht_parse_day($search_date_start, false);
$date_end = bericht_parse_day($search_date_end, true);
if ($date_start === '') {
	$search_date_start = '';
}
if ($date_end === '') {
	$search_date_end = '';
}

// Paging and sorting
$limit = GETPOSTINT('limit') ? GETPOSTINT('limit') : $conf->liste_limit;
$sortfield = GETPOST('sortfield', 'aZ09comma');
$sortorder = GETPOST('sortorder', 'aZ09comma');
$page = GETPOSTISSET('pageplusone') ? (GETPOSTINT('pageplusone') - 1) : GETPOSTINT('page');
if (empty($page) || $page < 0) {
	$page = 0;
}
if (!isset(BerichtReports::SORTFIELDS[$sortfield])) {
	$sortfield = 'b.datec';
}
$sortorder = (strtoupper($sortorder) === 'ASC' ? 'ASC' : 'DESC');
$offset = $limit * $page;

$reports = new BerichtReports($db, $conf->entity);
$filters = array('status' => $search_status, 'element' => $search_element, 'user' => $search_user, 'societe' => $search_societe,
	'text' => $search_text, 'date_start' => $date_start, 'date_end' => $date_end);
$result = $reports->fetchList($user, $filters, $sortfield, $sortorder, $limit, $offset);
if (!is_array($result)) {
	dol_print_error($db, $reports->error);
	exit;
}
// A page beyond the end (filters changed): show the first one.
if (!$result['rows'] && $offset > 0 && $result['total'] > 0) {
	$page = 0;
	$offset = 0;
	$result = $reports->fetchList($user, $filters, $sortfield, $sortorder, $limit, 0);
}
$rows = is_array($result) ? $result['rows'] : array();
$nbtotalofrecords = is_array($result) ? $result['total'] : 0;
$num = count($rows);


/*
 * View
 */

$title = $langs->trans('BerichtList');
llxHeader('', $title, '', '', 0, 0, '', '', '', 'mod-bericht page-list');

$param = '';
if ($limit > 0 && $limit != $conf->liste_limit) {
	$param .= '&limit='.((int) $limit);
}
foreach (array('search_text' => $search_text, 'search_status' => $search_status, 'search_element' => $search_element, 'search_societe' => $search_societe,
	'search_date_start' => $search_date_start, 'search_date_end' => $search_date_end) as $key => $value) {
	if ($value !== '') {
		$param .= '&'.$key.'='.urlencode($value);
	}
}
if ($search_user > 0) {
	$param .= '&search_user='.((int) $search_user);
}

print '<form method="POST" id="searchFormList" action="'.$_SERVER['PHP_SELF'].'">';
print '<input type="hidden" name="token" value="'.newToken().'">';
print '<input type="hidden" name="formfilteraction" id="formfilteraction" value="list">';
print '<input type="hidden" name="sortfield" value="'.dol_escape_htmltag($sortfield).'">';
print '<input type="hidden" name="sortorder" value="'.dol_escape_htmltag($sortorder).'">';
print '<input type="hidden" name="page" value="'.((int) $page).'">';

print_barre_liste($title, $page, $_SERVER['PHP_SELF'], $param, $sortfield, $sortorder, '', $num, $nbtotalofrecords, 'technic', 0, '', '', $limit, 0, 0, 1);

print '<div class="div-table-responsive">';
print '<table class="tagtable nobottomiftotal liste" id="bericht-list">';

// Filter row
print '<tr class="liste_titre_filter">';
print '<td class="liste_titre"><input class="flat maxwidth100" type="text" name="search_text" value="'.dol_escape_htmltag($search_text).'" placeholder="'.dol_escape_htmltag($langs->trans('BerichtSearchText')).'"></td>';
print '<td class="liste_titre"><select class="flat maxwidth100" name="search_element">';
print '<option value=""></option>';
foreach (BerichtReports::ELEMENTS as $type => $e) {
	print '<option value="'.$type.'"'.($search_element === $type ? ' selected' : '').'>'.dol_escape_htmltag($langs->trans($e['label'])).'</option>';
}
print '</select><br>';
print '<input class="flat maxwidth100" type="text" name="search_societe" value="'.dol_escape_htmltag($search_societe).'" placeholder="'.dol_escape_htmltag($langs->trans('ThirdParty')).'"></td>';
print '<td class="liste_titre"><select class="flat maxwidth100" name="search_status">';
print '<option value=""></option>';
print '<option value="0"'.($search_status === '0' ? ' selected' : '').'>'.dol_escape_htmltag($langs->trans('BerichtStatusDraft')).'</option>';
print '<option value="1"'.($search_status === '1' ? ' selected' : '').'>'.dol_escape_htmltag($langs->trans('BerichtStatusFinal')).'</option>';
print '</select></td>';
print '<td class="liste_titre"></td>';
print '<td class="liste_titre nowraponall"><select class="flat maxwidth100" name="search_user">';
print '<option value="0"></option>';
foreach ($reports->authors($user) as $uid => $name) {
	print '<option value="'.((int) $uid).'"'.($search_user == $uid ? ' selected' : '').'>'.dol_escape_htmltag($name).'</option>';
}
print '</select><br>';
print '<input class="flat maxwidth100" type="date" name="search_date_start" value="'.dol_escape_htmltag($search_date_start).'" title="'.dol_escape_htmltag($langs->trans('BerichtCreatedFrom')).'"><br>';
print '<input class="flat maxwidth100" type="date" name="search_date_end" value="'.dol_escape_htmltag($search_date_end).'" title="'.dol_escape_htmltag($langs->trans('BerichtCreatedTo')).'">';
print '</td>';
print '<td class="liste_titre"></td><td class="liste_titre"></td>';
print '<td class="liste_titre center maxwidthsearch">';
print '<button type="submit" class="liste_titre button_search reposition" name="button_search_x" value="x"><span class="fas fa-search"></span></button>';
print '<button type="submit" class="liste_titre button_removefilter reposition" name="button_removefilter_x" value="x"><span class="fas fa-times"></span></button>';
print '</td>';
print '</tr>';

// Titles
print '<tr class="liste_titre">';
print_liste_field_titre('BerichtRef', $_SERVER['PHP_SELF'], 'b.ref', '', $param, '', $sortfield, $sortorder);
print_liste_field_titre('BerichtObjectAndCustomer', $_SERVER['PHP_SELF'], 'parent_ref', '', $param, '', $sortfield, $sortorder);
print_liste_field_titre('Status', $_SERVER['PHP_SELF'], 'b.status', '', $param, '', $sortfield, $sortorder);
print_liste_field_titre('BerichtPages', $_SERVER['PHP_SELF'], '', '', $param, '', $sortfield, $sortorder, 'right ');
print_liste_field_titre('BerichtAuthorCreated', $_SERVER['PHP_SELF'], 'b.datec', '', $param, '', $sortfield, $sortorder);
print_liste_field_titre('BerichtSignatures', $_SERVER['PHP_SELF'], '', '', $param, '', $sortfield, $sortorder);
print_liste_field_titre('BerichtMail', $_SERVER['PHP_SELF'], '', '', $param, '', $sortfield, $sortorder);
print_liste_field_titre('BerichtPdf', $_SERVER['PHP_SELF'], '', '', $param, '', $sortfield, $sortorder);
print '</tr>';

foreach ($rows as $row) {
	$e = BerichtReports::ELEMENTS[$row->element_type];
	print '<tr class="oddeven" data-rowid="'.((int) $row->rowid).'">';
	print '<td class="nowraponall">'.bericht_ref_cell($row).'</td>';
	print '<td class="nowraponall">';
	print '<a href="'.DOL_URL_ROOT.$e['card'].((int) $row->fk_element).'" title="'.dol_escape_htmltag($langs->trans($e['label'])).'">'.img_picto('', $e['picto'], 'class="pictofixedwidth"').dol_escape_htmltag($row->parent_ref).'</a>';
	print ' <a class="small" href="'.dol_buildpath('/bericht/tab.php', 1).'?element='.urlencode($row->element_type).'&id='.((int) $row->fk_element).'" title="'.dol_escape_htmltag($langs->trans('BerichtTab')).'">'.img_picto($langs->trans('BerichtTab'), 'technic').'</a>';
	if ($row->socid) {
		print '<br><a class="tdoverflowmax100 inline-block" href="'.DOL_URL_ROOT.'/societe/card.php?socid='.((int) $row->socid).'">'.dol_escape_htmltag($row->soc_name).'</a>';
	}
	print '</td>';
	print '<td class="nowraponall">'.bericht_status_badge($row).'</td>';
	print '<td class="right">'.((int) $row->nbpages).'</td>';
	print '<td>'.bericht_author_cell($row).'</td>';
	print '<td>'.bericht_signatures_cell($row).'</td>';
	print '<td>'.bericht_mail_cell($row).'</td>';
	print '<td class="nowraponall">'.bericht_pdf_cell($row).'</td>';
	print '</tr>';
}
if ($num == 0) {
	print '<tr class="oddeven"><td colspan="8"><span class="opacitymedium">'.$langs->trans('NoRecordFound').'</span></td></tr>';
}
print '</table>';
print '</div>';
print '</form>';

llxFooter();
$db->close();
