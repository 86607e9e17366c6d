<?php
/* fieldreport: hooks of the module.
 *
 * This program is free software: GNU General Public License, version 3 or later.
 */

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
}
