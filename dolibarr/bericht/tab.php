<?php
/* fieldreport: the "Berichte" tab of an order, invoice, proposal or intervention: the object's reports
 * (on an invoice or an intervention also the reports of visits on orders that went on it).
 *
 * URL: custom/bericht/tab.php?element=commande|facture|propal|fichinter&id=<rowid> (registered in
 * the descriptor's $this->tabs). Needs the module's read right and Dolibarr's right to see the
 * object (restrictedArea: read right of orders/invoices/proposals/interventions, own third party
 * for external users, who see only final reports). A missing object gets Dolibarr's own
 * record-not-found page with HTTP 404.
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
require_once __DIR__.'/class/berichtinvoice.class.php';
require_once __DIR__.'/lib/bericht.lib.php';
require_once DOL_DOCUMENT_ROOT.'/core/lib/files.lib.php';

/**
 * @var Conf $conf
 * @var DoliDB $db
 * @var HookManager $hookmanager
 * @var Translate $langs
 * @var User $user
 */

$langs->loadLangs(array('bericht@bericht', 'orders', 'bills', 'propal', 'interventions', 'companies'));

$element = GETPOST('element', 'aZ09');
$id = GETPOSTINT('id');

// What each object type needs: class, tab head, picto, list.
$objects = array(
	'commande' => array('class' => 'Commande', 'file' => '/commande/class/commande.class.php', 'lib' => '/core/lib/order.lib.php', 'head' => 'commande_prepare_head', 'picto' => 'order', 'list' => '/commande/list.php'),
	'facture' => array('class' => 'Facture', 'file' => '/compta/facture/class/facture.class.php', 'lib' => '/core/lib/invoice.lib.php', 'head' => 'facture_prepare_head', 'picto' => 'bill', 'list' => '/compta/facture/list.php'),
	'propal' => array('class' => 'Propal', 'file' => '/comm/propal/class/propal.class.php', 'lib' => '/core/lib/propal.lib.php', 'head' => 'propal_prepare_head', 'picto' => 'propal', 'list' => '/comm/propal/list.php'),
	// Dolibarr checks an intervention as feature 'ficheinter' on the table 'fichinter' (fichinter/card.php).
	'fichinter' => array('class' => 'Fichinter', 'file' => '/fichinter/class/fichinter.class.php', 'lib' => '/core/lib/fichinter.lib.php', 'head' => 'fichinter_prepare_head', 'picto' => 'intervention', 'list' => '/fichinter/list.php',
		'feature' => 'ficheinter', 'table' => 'fichinter'),
);
if (!isset($objects[$element]) || $id <= 0) {
	httponly_accessforbidden('Bad value for parameter element or id', 400);
}
$def = $objects[$element];

// Security: the module's read right, then Dolibarr's own check of the object (rights, external users' third party).
if (!isModEnabled('bericht') || !$user->hasRight('bericht', 'read')) {
	accessforbidden();
}
$socid = ($user->socid > 0 ? $user->socid : 0);
$feature = isset($def['feature']) ? $def['feature'] : $element;
$tableandshare = isset($def['table']) ? $def['table'] : '';
// The right on the object type first, so that without it nobody learns whether an id exists.
restrictedArea($user, $feature, 0, $tableandshare);

require_once DOL_DOCUMENT_ROOT.$def['file'];
require_once DOL_DOCUMENT_ROOT.$def['lib'];
$object = new $def['class']($db);
if ($object->fetch($id) <= 0) {
	// As Dolibarr's cards: its page with the message, and the status a missing page has.
	http_response_code(404);
	recordNotFound();
}
restrictedArea($user, $feature, $object->id, $tableandshare);
$object->fetch_thirdparty();

$hookmanager->initHooks(array('berichttab', 'globalcard'));

$reports = new BerichtReports($db, $conf->entity);
$rows = $reports->fetchForObject($user, $element, $object->id);
if (!is_array($rows)) {
	dol_print_error($db, $reports->error);
	exit;
}


/*
 * Actions
 */

// The draft invoice of a report, when the service leaves it to the clerk (a form posted with Dolibarr's token).
$action = GETPOST('action', 'aZ09');
// Only POST: Dolibarr checks the token of a POST (main.inc.php), not of a GET with an action of the module's own.
if ($action === 'makeinvoice' && isset($_SERVER['REQUEST_METHOD']) && $_SERVER['REQUEST_METHOD'] === 'POST') {
	$reportid = GETPOSTINT('report');
	$row = null;
	foreach ($rows as $candidate) {
		if ((int) $candidate->rowid === $reportid) {
			$row = $candidate;
		}
	}
	if ($row && $row->fk_facture > 0 && $user->hasRight('facture', 'lire')) {
		// Made already (a second click): its invoice.
		header('Location: '.DOL_URL_ROOT.'/compta/facture/card.php?id='.((int) $row->fk_facture));
		exit;
	}
	if (!$row || !BerichtInvoice::offered($row, $user)) {
		// Not a report of this object the user may bill (anymore): said, nothing made.
		setEventMessages($langs->trans('BerichtInvoiceNotOffered'), null, 'errors');
	} else {
		$maker = new BerichtInvoice($db, $conf->entity);
		$invoiceid = $maker->make($user, $reportid);
		if ($invoiceid > 0) {
			setEventMessages($langs->trans('BerichtInvoiceMade', $row->ref), null, 'mesgs');
			header('Location: '.DOL_URL_ROOT.'/compta/facture/card.php?id='.((int) $invoiceid));
			exit;
		}
		setEventMessages($maker->error, null, 'errors');
	}
	header('Location: '.$_SERVER['PHP_SELF'].'?element='.urlencode($element).'&id='.((int) $object->id));
	exit;
}


/*
 * View
 */

$title = $object->ref.' - '.$langs->trans('BerichtTab');
llxHeader('', $title, '', '', 0, 0, '', '', '', 'mod-bericht page-tab');

$headfunction = $def['head'];
$head = $headfunction($object);
print dol_get_fiche_head($head, 'bericht', $langs->trans(BerichtReports::ELEMENTS[$element]['label']), -1, $def['picto']);

$linkback = '<a href="'.DOL_URL_ROOT.$def['list'].'?restore_lastsearch_values=1'.($socid ? '&socid='.((int) $socid) : '').'">'.$langs->trans('BackToList').'</a>';
$morehtmlref = '<div class="refidno">';
if (!empty($object->ref_client)) {
	$morehtmlref .= $langs->trans('RefCustomer').': '.dol_escape_htmltag($object->ref_client).'<br>';
}
if (is_object($object->thirdparty)) {
	$morehtmlref .= $object->thirdparty->getNomUrl(1);
}
$morehtmlref .= '</div>';
dol_banner_tab($object, 'id', $linkback, 1, 'rowid', 'ref', $morehtmlref, '&element='.urlencode($element));

print '<div class="fichecenter">';
print '<div class="underbanner clearboth"></div>';
print '</div>';
print dol_get_fiche_end();

print load_fiche_titre($langs->trans('BerichtTabTitle'), '', 'technic');

print '<div class="div-table-responsive">';
print '<table class="noborder centpercent" id="bericht-tab">';
print '<tr class="liste_titre">';
// Only an order's reports go on an invoice.
$columns = array('BerichtRef', 'Status', 'BerichtPages', 'BerichtAuthorCreated', 'BerichtSignatures', 'BerichtMail', 'BerichtPdf');
if ($element === 'commande') {
	$columns[] = 'BerichtInvoiceColumn';
}
foreach ($columns as $key) {
	print '<th class="wrapcolumntitle">'.$langs->trans($key).'</th>';
}
print '</tr>';

// A copy of the final PDF in the object's own documents (the service puts it there).
$objectdir = bericht_object_dir($element, $object->ref, $object->entity ?: $conf->entity);

foreach ($rows as $row) {
	print '<tr class="oddeven" data-rowid="'.((int) $row->rowid).'" id="bericht-'.((int) $row->rowid).'">';
	print '<td class="nowraponall">'.bericht_ref_cell($row, 'pdf');
	if ($row->element_type !== $element) {
		// A visit on an order that went on this invoice or intervention: its order.
		print '<br><span class="small">'.bericht_parent_link($row).'</span>';
	}
	print '</td>';
	print '<td class="nowraponall">'.bericht_status_badge($row).'</td>';
	print '<td class="right">'.((int) $row->nbpages).'</td>';
	print '<td>'.bericht_author_cell($row).'</td>';
	print '<td>'.bericht_signatures_cell($row).'</td>';
	print '<td>'.bericht_mail_cell($row).'</td>';
	print '<td class="nowraponall">'.bericht_pdf_cell($row);
	if ($objectdir !== '' && BerichtReports::pdfFile($row) !== '' && dol_is_file($objectdir.'/'.dol_sanitizeFileName($row->ref).'.pdf')) {
		// Said in a word, explained on hover: the column stays narrow on a laptop's screen.
		print '<br><span class="small opacitymedium" title="'.dol_escape_htmltag($langs->trans('BerichtCopyInOrderDocuments')).'">'.$langs->trans('BerichtCopyShort').'</span>';
	}
	print '</td>';
	if ($element === 'commande') {
		print '<td class="nowraponall">'.bericht_invoice_cell($row, $element, $object->id).'</td>';
	}
	print '</tr>';
}
if (!$rows) {
	print '<tr class="oddeven"><td colspan="'.count($columns).'"><span class="opacitymedium">'.$langs->trans('BerichtNoReports').'</span></td></tr>';
}
print '</table>';
print '</div>';

llxFooter();
$db->close();
