<?php
/* fieldreport: hooks of the module.
 *
 * This program is free software: GNU General Public License, version 3 or later.
 */

require_once __DIR__.'/../lib/bericht.lib.php';

/**
 * Hook checkSecureAccess (document.php): for modulepart=bericht, Dolibarr's generic case lets every
 * user with the right bericht read open a file. External users (user->socid) must only get the
 * reports of their own third party: the query handed back makes document.php compare the third
 * party of the report's order, invoice or proposal with the user's (and refuse a report whose
 * object it cannot find).
 */
class ActionsBericht
{
	/** @var DoliDB */
	public $db;
	/** @var array<string,mixed> What the hook hands back: Dolibarr's HookManager merges it into its resArray */
	public $results = array();
	/** @var string[] */
	public $errors = array();

	/**
	 * @param DoliDB $db Database handler
	 */
	public function __construct($db)
	{
		$this->db = $db;
	}

	/**
	 * @param array<string,mixed> $parameters modulepart, original_file (full path), entity, fuser
	 * @param object|null         $object     Current object
	 * @param string              $action     Current action
	 * @return int 0: nothing to add, 1: results holds sqlprotectagainstexternals
	 */
	public function checkSecureAccess($parameters, &$object, &$action)
	{
		if (($parameters['modulepart'] ?? '') !== 'bericht') {
			return 0;
		}
		$fuser = $parameters['fuser'];
		if (empty($fuser->socid)) {
			return 0;
		}
		// <documents>/bericht/<ref>/<file>: the folder is the report's ref.
		$ref = basename(dirname((string) $parameters['original_file']));
		$p = $this->db->prefix();
		$sql = "SELECT COALESCE(co.fk_soc, fa.fk_soc, pr.fk_soc, 0) as fk_soc FROM ".$p."bericht as b";
		$sql .= " LEFT JOIN ".$p."commande as co ON b.element_type = 'commande' AND co.rowid = b.fk_element";
		$sql .= " LEFT JOIN ".$p."facture as fa ON b.element_type = 'facture' AND fa.rowid = b.fk_element";
		$sql .= " LEFT JOIN ".$p."propal as pr ON b.element_type = 'propal' AND pr.rowid = b.fk_element";
		$sql .= " WHERE b.ref = '".$this->db->escape($ref)."' AND b.entity = ".((int) $parameters['entity']);
		$this->results = array('sqlprotectagainstexternals' => $sql);
		return 1;
	}

	/**
	 * Hook getFormMail (Dolibarr's "send by e-mail" form of an order, invoice or proposal): when the
	 * form opens, the newest final report of the object is attached beside the object's own PDF (its
	 * copy in the object's documents). The clerk may remove it as any attachment.
	 *
	 * @param array<string,mixed> $parameters trackid (ord12, inv3, pro7)
	 * @param FormMail            $object     The form
	 * @param string              $action     Current action
	 * @return int 0: the form as Dolibarr makes it
	 */
	public function getFormMail($parameters, &$object, &$action)
	{
		global $conf, $user;
		if (GETPOST('mode', 'alpha') !== 'init' || !$user->hasRight('bericht', 'read')) {
			return 0;
		}
		$types = array('ord' => 'commande', 'inv' => 'facture', 'pro' => 'propal');
		$reg = array();
		if (!preg_match('/^(ord|inv|pro)(\d+)$/', (string) ($parameters['trackid'] ?? ''), $reg)) {
			return 0;
		}
		$element = $types[$reg[1]];
		$p = $this->db->prefix();
		$sql = "SELECT b.ref, o.ref as objectref, o.entity FROM ".$p."bericht as b";
		$sql .= " INNER JOIN ".$p.$element." as o ON o.rowid = b.fk_element";
		$sql .= " WHERE b.element_type = '".$this->db->escape($element)."' AND b.fk_element = ".((int) $reg[2]);
		$sql .= " AND b.status = 1 AND b.is_template = 0 AND b.entity = ".((int) $conf->entity);
		$sql .= " ORDER BY b.rowid DESC";
		$sql .= $this->db->plimit(1);
		$resql = $this->db->query($sql);
		$obj = $resql ? $this->db->fetch_object($resql) : null;
		if (!$obj) {
			return 0;
		}
		$dir = bericht_object_dir($element, $obj->objectref, (int) $obj->entity);
		$file = $dir.'/'.dol_sanitizeFileName($obj->ref).'.pdf';
		if ($dir !== '' && is_readable($file)) {
			$object->add_attached_files($file, basename($file), 'application/pdf');
		}
		return 0;
	}
}
