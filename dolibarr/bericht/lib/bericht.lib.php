<?php
/* fieldreport: the cells of a report row, shared by the object tab and the list.
 *
 * This program is free software: GNU General Public License, version 3 or later.
 */

/**
 * The status as Dolibarr shows statuses (badge): draft or final.
 *
 * @param object $row A report row
 * @return string HTML
 */
function bericht_status_badge($row)
{
	global $langs;
	$final = ((int) $row->status === 1);
	$label = $langs->trans($final ? 'BerichtStatusFinal' : 'BerichtStatusDraft');
	$out = dolGetStatus($label, $label, '', $final ? 'status4' : 'status0', 5);
	// The table has no date of finalizing; a final report is not changed any more, so its last
	// change (tms) is that moment.
	if ($final && !empty($row->tms)) {
		$out .= '<br><span class="small opacitymedium nowraponall">'.bericht_date($row->tms).'</span>';
	}
	return $out;
}

/**
 * A date of the service's tables (UTC) in the user's time zone.
 *
 * @param string|null $value Datetime as read from the database
 * @return string
 */
function bericht_date($value)
{
	global $db;
	if (empty($value)) {
		return '';
	}
	return dol_print_date($db->jdate($value, 'gmt'), 'dayhour', 'tzuserrel');
}

/**
 * Who signed, and when, from llx_bericht_signature; "not signed" without a row. With the service's
 * address in BERICHT_SERVICE_URL, each signature links to the service's public check of it, which
 * says whether the report is unaltered since it was signed.
 *
 * @param object $row A report row with its signatures
 * @return string HTML
 */
function bericht_signatures_cell($row)
{
	global $langs;
	if (empty($row->signatures)) {
		return '<span class="opacitymedium">'.$langs->trans('BerichtNotSigned').'</span>';
	}
	$service = rtrim(getDolGlobalString('BERICHT_SERVICE_URL'), '/');
	$out = array();
	foreach ($row->signatures as $sig) {
		$check = '';
		if (preg_match('/^https?:\/\//', $service) && preg_match('/^[A-Za-z0-9_-]+$/', (string) $sig->verify_code)) {
			$check = ' <a class="small" rel="noopener" target="_blank" href="'.dol_escape_htmltag($service.'/public/verify_signature.php?code='.$sig->verify_code).'" title="'.dol_escape_htmltag($langs->trans('BerichtCheckTitle')).'">'.$langs->trans('BerichtCheck').'</a>';
		}
		$out[] = '<span class="nowraponall">'.img_picto('', 'fa-signature', 'class="pictofixedwidth"').dol_escape_htmltag($sig->signer_name)
			.'</span><br><span class="small opacitymedium nowraponall">'.bericht_date($sig->datec).'</span>'.$check;
	}
	return implode('<br>', $out);
}

/**
 * The newest mail job of the report: state, date, recipient (and the reason of a failure).
 *
 * @param object $row A report row with its newest mail
 * @return string HTML
 */
function bericht_mail_cell($row)
{
	global $langs;
	$mail = $row->mail;
	if (!$mail) {
		return '<span class="opacitymedium">'.$langs->trans('BerichtMailNone').'</span>';
	}
	$states = array('queued' => 'status1', 'sending' => 'status3', 'sent' => 'status4', 'failed' => 'status8');
	$state = isset($states[$mail->state]) ? $mail->state : 'unknown';
	$label = $langs->trans('BerichtMail_'.$state);
	$out = dolGetStatus($label, $label, '', isset($states[$state]) ? $states[$state] : 'status0', 5);
	$out .= '<br><span class="small opacitymedium nowraponall">'.bericht_date($state === 'sent' && !empty($mail->date_sent) ? $mail->date_sent : $mail->datec).'</span>';
	$out .= '<br><span class="small tdoverflowmax100 inline-block" title="'.dol_escape_htmltag($mail->mail_to).'">'.$langs->trans('BerichtMailTo').' '.dol_escape_htmltag($mail->mail_to).'</span>';
	if ($state === 'failed' && !empty($mail->error)) {
		$out .= '<br><span class="small error tdoverflowmax150 inline-block" title="'.dol_escape_htmltag($mail->error).'">'.dol_escape_htmltag(dol_trunc($mail->error, 60)).'</span>';
	}
	return $out;
}

/**
 * Link to the final PDF through document.php (modulepart bericht, the module's read right).
 *
 * @param object $row A report row
 * @return string HTML
 */
function bericht_pdf_cell($row)
{
	global $conf, $langs;
	$file = BerichtReports::pdfFile($row);
	if ($file === '') {
		return '';
	}
	if (!dol_is_file($conf->bericht->dir_output.'/'.$file)) {
		return '<span class="warning">'.$langs->trans('BerichtPdfMissing').'</span>';
	}
	$url = DOL_URL_ROOT.'/document.php?modulepart=bericht&entity='.((int) $conf->entity).'&file='.urlencode($file);
	return '<a href="'.dol_escape_htmltag($url).'" target="_blank" rel="noopener" title="'.dol_escape_htmltag($langs->trans('BerichtOpenPdf')).'">'
		.img_pdf($langs->trans('BerichtOpenPdf')).' '.$langs->trans('BerichtPdf').'</a>';
}

/**
 * Ref with version, linked: in the list to the report on its object's "Berichte" tab, on the tab
 * to its PDF (a final report). A report a newer version replaces says so.
 *
 * @param object $row  A report row
 * @param string $link 'tab' (the list) or 'pdf' (the tab)
 * @return string HTML
 */
function bericht_ref_cell($row, $link = 'pdf')
{
	global $conf, $langs;
	$label = img_picto('', 'technic', 'class="pictofixedwidth"').'<strong>'.dol_escape_htmltag($row->ref).'</strong>';
	$url = '';
	$tooltip = $langs->trans('BerichtShowReport').': '.$row->ref.' — '.$row->title;
	if ($link === 'tab' && isset(BerichtReports::ELEMENTS[$row->element_type])) {
		$url = dol_buildpath('/bericht/tab.php', 1).'?element='.urlencode($row->element_type).'&id='.((int) $row->fk_element).'#bericht-'.((int) $row->rowid);
	} elseif ($link === 'pdf' && BerichtReports::pdfFile($row) !== '' && dol_is_file($conf->bericht->dir_output.'/'.BerichtReports::pdfFile($row))) {
		$url = DOL_URL_ROOT.'/document.php?modulepart=bericht&entity='.((int) $conf->entity).'&file='.urlencode(BerichtReports::pdfFile($row));
		$tooltip = $langs->trans('BerichtOpenPdf').': '.$row->ref;
	}
	$out = '<span class="nowraponall">';
	$out .= ($url !== '' ? '<a class="bericht-ref" href="'.dol_escape_htmltag($url).'" title="'.dol_escape_htmltag($tooltip).'"'.($link === 'pdf' ? ' target="_blank" rel="noopener"' : '').'>'.$label.'</a>' : $label);
	$out .= '</span>';
	if ($link === 'pdf') {
		$out .= '<br><span class="small tdoverflowmax100 inline-block" title="'.dol_escape_htmltag($row->title).'">'.dol_escape_htmltag($row->title).'</span>';
	}
	if ((int) $row->version > 1 || $row->newer_ref !== null) {
		$out .= ' <span class="opacitymedium">'.$langs->trans('BerichtVersionN', (int) $row->version).'</span>';
	}
	if ($row->newer_ref !== null) {
		$out .= '<br><span class="small opacitymedium">'.$langs->trans('BerichtReplacedBy', dol_escape_htmltag($row->newer_ref)).'</span>';
	}
	return $out;
}

/**
 * The report's object as Dolibarr links it: its class's getNomUrl with its picto.
 *
 * @param object $row A report row (element_type, fk_element, parent_ref, parent_ref_client, parent_status, socid)
 * @return string HTML
 */
function bericht_parent_link($row)
{
	global $db;
	static $statics = array();
	$type = (string) $row->element_type;
	if (!isset(BerichtReports::ELEMENTS[$type])) {
		return '';
	}
	$e = BerichtReports::ELEMENTS[$type];
	if (!isset($statics[$type])) {
		require_once DOL_DOCUMENT_ROOT.$e['file'];
		$statics[$type] = new $e['class']($db);
	}
	$object = $statics[$type];
	$object->id = (int) $row->fk_element;
	$object->ref = (string) $row->parent_ref;
	$object->ref_client = (string) $row->parent_ref_client;
	$object->statut = (int) $row->parent_status;
	$object->status = (int) $row->parent_status;
	$object->socid = (int) $row->socid;
	$object->entity = (int) $row->parent_entity;
	return $object->getNomUrl(1);
}

/**
 * The author's name (login when the user has none).
 *
 * @param object $row A report row
 * @return string HTML
 */
function bericht_author_name($row)
{
	$name = trim($row->user_firstname.' '.$row->user_lastname);
	return '<span title="'.dol_escape_htmltag((string) $row->user_login).'">'.dol_escape_htmltag($name !== '' ? $name : (string) $row->user_login).'</span>';
}

/**
 * The author's name and, below, when the report was made.
 *
 * @param object $row A report row
 * @return string HTML
 */
function bericht_author_cell($row)
{
	return '<span class="tdoverflowmax125 inline-block">'.bericht_author_name($row).'</span>'
		.'<br><span class="small opacitymedium nowraponall">'.bericht_date($row->datec).'</span>';
}

/**
 * The documents folder of an order, invoice, proposal or intervention, where the service puts a
 * copy of each final report's PDF (<report ref>.pdf); '' when Dolibarr has none for it. The
 * intervention's module is ficheinter (documents/ficheinter/<ref>/).
 *
 * @param string $element   commande, facture, propal or fichinter
 * @param string $objectref The object's ref
 * @param int    $entity    The object's entity
 * @return string
 */
function bericht_object_dir($element, $objectref, $entity)
{
	global $conf;
	if (!isset(BerichtReports::ELEMENTS[$element])) {
		return '';
	}
	$module = BerichtReports::ELEMENTS[$element]['module'];
	if (!empty($conf->$module->multidir_output[$entity])) {
		$dir = $conf->$module->multidir_output[$entity];
	} elseif ((int) $entity === (int) $conf->entity && !empty($conf->$module->dir_output)) {
		$dir = $conf->$module->dir_output;
	} else {
		return '';
	}
	return $dir.'/'.dol_sanitizeFileName($objectref);
}

/**
 * The invoice a report's time and parts went on (a link with its status), or, when the clerk makes
 * the draft (BerichtInvoice::offered), the button that makes it.
 *
 * @param object $row     A report as BerichtReports reads it
 * @param string $element The tab's object type
 * @param int    $id      The tab's object id
 * @return string HTML
 */
function bericht_invoice_cell($row, $element, $id)
{
	global $db, $langs, $user;
	static $cells = array();
	if ($row->fk_facture > 0) {
		$fid = (int) $row->fk_facture;
		if (!isset($cells[$fid])) {
			// The few columns the link and the status need (several reports often share one invoice).
			require_once DOL_DOCUMENT_ROOT.'/compta/facture/class/facture.class.php';
			$resql = $db->query("SELECT rowid, ref, fk_soc, entity, fk_statut, paye, type FROM ".$db->prefix()."facture WHERE rowid = ".$fid);
			$obj = $resql ? $db->fetch_object($resql) : null;
			if ($obj) {
				$invoice = new Facture($db);
				$invoice->id = (int) $obj->rowid;
				$invoice->ref = (string) $obj->ref;
				$invoice->socid = (int) $obj->fk_soc;
				$invoice->entity = (int) $obj->entity;
				$invoice->statut = $invoice->status = (int) $obj->fk_statut;
				$invoice->paye = (int) $obj->paye;
				$invoice->type = (int) $obj->type;
				$cells[$fid] = $invoice->getNomUrl(1).' '.$invoice->getLibStatut(5);
			} else {
				$cells[$fid] = '<span class="opacitymedium">'.$langs->trans('BerichtInvoiceGone').'</span>';
			}
		}
		return $cells[$fid];
	}
	if (!BerichtInvoice::offered($row, $user)) {
		return '';
	}
	return '<form method="POST" action="'.dol_escape_htmltag($_SERVER['PHP_SELF']).'?element='.urlencode($element).'&id='.((int) $id).'" class="inline-block">'
		.'<input type="hidden" name="token" value="'.newToken().'">'
		.'<input type="hidden" name="action" value="makeinvoice">'
		.'<input type="hidden" name="report" value="'.((int) $row->rowid).'">'
		.'<input type="submit" class="button smallpaddingimp" value="'.dol_escape_htmltag($langs->trans('BerichtInvoiceMake')).'"'
		.' title="'.dol_escape_htmltag($langs->trans('BerichtInvoiceMakeHelp')).'">'
		.'</form>';
}
