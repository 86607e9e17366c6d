<?php
/* fieldreport: what the module does when Dolibarr acts on an object that has reports.
 *
 * - ORDER_SENTBYMAIL, BILL_SENTBYMAIL, PROPAL_SENTBYMAIL, FICHINTER_SENTBYMAIL: Dolibarr's own
 *   "send by e-mail" form sent a mail; each final report whose PDF it carried (the copy in the
 *   object's documents, which the form attaches, or the report's own PDF) is recorded as sent in
 *   llx_bericht_mail (state 'sent', recipients, subject, text, message id, Dolibarr's event), so
 *   the tab and the list show it as the service's own mails.
 * - ORDER_DELETE, BILL_DELETE, PROPAL_DELETE, FICHINTER_DELETE: Dolibarr calls them first in the
 *   transaction that deletes the object. A final (signed, sent) report is never deleted with it:
 *   the deletion is refused with the reports' refs, as Dolibarr refuses to delete an order that
 *   has shipments. Without final reports, the object's drafts are deleted with their pages and
 *   their work folder (documents/bericht/<ref>/), as Dolibarr deletes the object's own files.
 *   An invoice or intervention deleted: the reports whose time and parts went on it are on none
 *   any more (llx_bericht.fk_facture, fk_fichinter back to NULL).
 *
 * This program is free software: GNU General Public License, version 3 or later.
 */

require_once DOL_DOCUMENT_ROOT.'/core/triggers/dolibarrtriggers.class.php';
require_once __DIR__.'/../../class/berichtreports.class.php';
require_once __DIR__.'/../../lib/bericht.lib.php';

/**
 * Triggers of the module Bericht.
 */
class InterfaceBerichtTriggers extends DolibarrTriggers
{
	/** Dolibarr's trigger codes => the element type of the reports' objects. */
	const SENT = array('ORDER_SENTBYMAIL' => 'commande', 'BILL_SENTBYMAIL' => 'facture', 'PROPAL_SENTBYMAIL' => 'propal', 'FICHINTER_SENTBYMAIL' => 'fichinter');
	const DELETE = array('ORDER_DELETE' => 'commande', 'BILL_DELETE' => 'facture', 'PROPAL_DELETE' => 'propal', 'FICHINTER_DELETE' => 'fichinter');

	/**
	 * @param DoliDB $db Database handler
	 */
	public function __construct($db)
	{
		$this->db = $db;
		$this->name = preg_replace('/^Interface/i', '', get_class($this));
		$this->family = 'crm';
		$this->description = 'fieldreport: mails sent with Dolibarr\'s form and deleted objects of the reports';
		$this->version = '0.1.0';
		$this->picto = 'technic';
	}

	/**
	 * @param string       $action Event code
	 * @param CommonObject $object The object
	 * @param User         $user   The user
	 * @param Translate    $langs  Languages
	 * @param Conf         $conf   Configuration
	 * @return int <0 on error (a deletion refused), 0 nothing done, >0 done
	 */
	public function runTrigger($action, $object, User $user, Translate $langs, Conf $conf)
	{
		if (!isModEnabled('bericht')) {
			return 0;
		}
		if (isset(self::SENT[$action])) {
			return $this->recordSent(self::SENT[$action], $object, $user, $conf);
		}
		if (isset(self::DELETE[$action])) {
			return $this->objectDeleted(self::DELETE[$action], $object, $langs, $conf);
		}
		return 0;
	}

	/**
	 * The reports a mail of Dolibarr's form carried, recorded as sent.
	 *
	 * @param string       $element Element type
	 * @param CommonObject $object  The object, with attachedfiles, email_* as actions_sendmails.inc.php sets them
	 * @param User         $user    Who sent it
	 * @param Conf         $conf    Configuration
	 * @return int Number of reports recorded, -1 on error
	 */
	private function recordSent($element, $object, User $user, Conf $conf)
	{
		$paths = (isset($object->attachedfiles['paths']) && is_array($object->attachedfiles['paths'])) ? $object->attachedfiles['paths'] : array();
		if (!$paths || empty($object->id)) {
			return 0;
		}
		$attached = array();
		foreach ($paths as $path) {
			$real = realpath((string) $path);
			if ($real !== false) {
				$attached[$real] = true;
			}
		}
		$entity = !empty($object->entity) ? (int) $object->entity : (int) $conf->entity;
		$reports = new BerichtReports($this->db, $entity);
		$finals = $reports->finalReportsOf($element, (int) $object->id, true);
		if (!is_array($finals)) {
			$this->errors[] = $reports->error;
			return -1;
		}
		$dir = bericht_object_dir($element, (string) $object->ref, $entity);
		$moduledir = !empty($conf->bericht->multidir_output[$entity]) ? $conf->bericht->multidir_output[$entity] : (string) $conf->bericht->dir_output;
		$sent = array();
		foreach ($finals as $report) {
			$candidates = array();
			if ($dir !== '') {
				$candidates[] = $dir.'/'.dol_sanitizeFileName($report->ref).'.pdf';
			}
			if (BerichtReports::pdfFile($report) !== '') {
				$candidates[] = $moduledir.'/'.BerichtReports::pdfFile($report);
			}
			foreach ($candidates as $candidate) {
				$real = realpath($candidate);
				if ($real !== false && isset($attached[$real])) {
					$sent[] = $report;
					break;
				}
			}
		}
		if (!$sent) {
			return 0;
		}
		// Dolibarr's agenda trigger (interface_50) has written the event of this mail just before.
		$actioncomm = null;
		if (!empty($object->email_msgid)) {
			// Its elementtype is the agenda's name of the element ('order' for an order): the message id and the object's id find it.
			$sql = "SELECT id FROM ".$this->db->prefix()."actioncomm WHERE fk_element = ".((int) $object->id);
			$sql .= " AND email_msgid = '".$this->db->escape($object->email_msgid)."' ORDER BY id DESC";
			$resql = $this->db->query($sql.$this->db->plimit(1));
			$obj = $resql ? $this->db->fetch_object($resql) : null;
			$actioncomm = $obj ? (int) $obj->id : null;
		}
		$mail = array(
			'to' => (string) $object->email_to,
			'cc' => (string) (isset($object->email_tocc) ? $object->email_tocc : ''),
			'bcc' => (string) (isset($object->email_tobcc) ? $object->email_tobcc : ''),
			'subject' => (string) $object->email_subject,
			'body' => (string) (isset($object->actionmsg) ? $object->actionmsg : ''),
			'msgid' => (string) (isset($object->email_msgid) ? $object->email_msgid : ''),
			'user' => (int) $user->id,
			'ip' => function_exists('getUserRemoteIP') ? (string) getUserRemoteIP() : '',
			'actioncomm' => $actioncomm,
		);
		foreach ($sent as $report) {
			if ($reports->recordSentMail((int) $report->rowid, $mail) < 0) {
				$this->errors[] = $reports->error;
				return -1;
			}
		}
		return count($sent);
	}

	/**
	 * An object is being deleted: refuse while it has final reports, else delete its drafts.
	 *
	 * @param string       $element Element type
	 * @param CommonObject $object  The object
	 * @param Translate    $langs   Languages
	 * @param Conf         $conf    Configuration
	 * @return int -1 refused or error, else the number of drafts deleted
	 */
	private function objectDeleted($element, $object, Translate $langs, Conf $conf)
	{
		if (empty($object->id)) {
			return 0;
		}
		$entity = !empty($object->entity) ? (int) $object->entity : (int) $conf->entity;
		$reports = new BerichtReports($this->db, $entity);
		$found = $reports->reportsOfObject($element, (int) $object->id);
		if (!is_array($found)) {
			$this->errors[] = $reports->error;
			return -1;
		}
		if ($found['finals']) {
			$langs->loadLangs(array('bericht@bericht'));
			$refs = array();
			foreach ($found['finals'] as $report) {
				$refs[] = $report->ref;
			}
			$this->errors[] = $langs->trans('BerichtObjectHasFinalReports', (string) $object->ref, implode(', ', $refs));
			return -1;
		}
		$deleted = array();
		foreach ($found['drafts'] as $report) {
			$result = $reports->deleteDraft((int) $report->rowid);
			if ($result === -1) {
				$this->errors[] = $reports->error;
				return -1;
			}
			if (!is_string($result)) {
				// Pages of other reports show images of this draft: it stays, and so does the object.
				$langs->loadLangs(array('bericht@bericht'));
				$this->errors[] = $langs->trans('BerichtObjectDraftShared', (string) $object->ref, (string) $report->ref);
				return -1;
			}
			$deleted[] = $result;
		}
		// Reports of visits on orders whose time and parts went on this invoice or intervention: on none
		// any more (the tab offers the invoice's button again), in the deletion's own transaction.
		$went = array('facture' => 'fk_facture', 'fichinter' => 'fk_fichinter');
		if (isset($went[$element]) && !$this->db->query("UPDATE ".$this->db->prefix()."bericht SET ".$went[$element]." = NULL WHERE ".$went[$element]." = ".((int) $object->id)." AND entity = ".$entity)) {
			$this->errors[] = $this->db->lasterror();
			return -1;
		}
		$moduledir = !empty($conf->bericht->multidir_output[$entity]) ? $conf->bericht->multidir_output[$entity] : (string) $conf->bericht->dir_output;
		$reports->deleteDraftFiles($deleted, $moduledir);
		return count($deleted);
	}
}
