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
 * Ref with version; a report a newer version replaces says so.
 *
 * @param object $row A report row
 * @return string HTML
 */
function bericht_ref_cell($row)
{
	global $langs;
	$out = '<span class="nowraponall">'.img_picto('', 'technic', 'class="pictofixedwidth"').'<strong>'.dol_escape_htmltag($row->ref).'</strong></span>';
	$out .= '<br><span class="small tdoverflowmax100 inline-block" title="'.dol_escape_htmltag($row->title).'">'.dol_escape_htmltag($row->title).'</span>';
	if ((int) $row->version > 1 || $row->newer_ref !== null) {
		$out .= ' <span class="opacitymedium">'.$langs->trans('BerichtVersionN', (int) $row->version).'</span>';
	}
	if ($row->newer_ref !== null) {
		$out .= '<br><span class="small opacitymedium">'.$langs->trans('BerichtReplacedBy', dol_escape_htmltag($row->newer_ref)).'</span>';
	}
	return $out;
}

/**
 * The author's name and, below, when the report was made.
 *
 * @param object $row A report row
 * @return string HTML
 */
function bericht_author_cell($row)
{
	$name = trim($row->user_firstname.' '.$row->user_lastname);
	return '<span class="tdoverflowmax125 inline-block">'.dol_escape_htmltag($name !== '' ? $name : (string) $row->user_login).'</span>'
		.'<br><span class="small opacitymedium nowraponall">'.bericht_date($row->datec).'</span>';
}

/**
 * The documents folder of an order, invoice or proposal, where the service puts a copy of each final
 * report's PDF (<report ref>.pdf); '' when Dolibarr has none for it.
 *
 * @param string $element   commande, facture or propal
 * @param string $objectref The object's ref
 * @param int    $entity    The object's entity
 * @return string
 */
function bericht_object_dir($element, $objectref, $entity)
{
	global $conf;
	if (!in_array($element, array('commande', 'facture', 'propal'), true) || empty($conf->$element->multidir_output[$entity])) {
		return '';
	}
	return $conf->$element->multidir_output[$entity].'/'.dol_sanitizeFileName($objectref);
}
