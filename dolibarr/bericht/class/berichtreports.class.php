<?php
/* fieldreport: the reports of the service as the office reads them in Dolibarr.
 *
 * Reads the service's tables (llx_bericht, llx_bericht_page, llx_bericht_signature,
 * llx_bericht_mail) through Dolibarr's database handler; it writes nothing. Which reports a user
 * sees follows Dolibarr's rules for the report's object: the right to read orders, invoices or
 * proposals, the own third party for external users, and the third parties the user is sales
 * representative of when the user may not see all customers (societe->client->voir).
 *
 * This program is free software: GNU General Public License, version 3 or later.
 */

/**
 * Queries on the service's report tables.
 */
class BerichtReports
{
	/** The objects a report can belong to: element_type => what Dolibarr calls them. */
	const ELEMENTS = array(
		'commande' => array('table' => 'commande', 'right' => 'commande', 'alias' => 'co', 'card' => '/commande/card.php?id=', 'label' => 'CustomerOrder', 'picto' => 'order'),
		'facture' => array('table' => 'facture', 'right' => 'facture', 'alias' => 'fa', 'card' => '/compta/facture/card.php?id=', 'label' => 'InvoiceCustomer', 'picto' => 'bill'),
		'propal' => array('table' => 'propal', 'right' => 'propal', 'alias' => 'pr', 'card' => '/comm/propal/card.php?id=', 'label' => 'Proposal', 'picto' => 'propal'),
	);

	/** The list's sortable columns: request value => SQL. Anything else sorts by creation date. */
	const SORTFIELDS = array(
		'b.ref' => 'b.ref', 'b.title' => 'b.title', 'b.status' => 'b.status', 'b.datec' => 'b.datec', 'b.tms' => 'b.tms',
		'b.version' => 'b.version', 'u.lastname' => 'u.lastname', 's.nom' => 's.nom', 'parent_ref' => 'parent_ref',
	);

	/** @var DoliDB */
	public $db;
	/** @var int */
	public $entity;
	/** @var string SQL error of the last failed query */
	public $error = '';

	/**
	 * @param DoliDB $db     Database handler
	 * @param int    $entity Entity of the reports
	 */
	public function __construct($db, $entity)
	{
		$this->db = $db;
		$this->entity = (int) $entity;
	}

	/**
	 * The element types whose objects $user may read.
	 *
	 * @param User $user User
	 * @return string[]
	 */
	public function readableElements($user)
	{
		$types = array();
		foreach (self::ELEMENTS as $type => $e) {
			if ($user->hasRight($e['right'], 'lire')) {
				$types[] = $type;
			}
		}
		return $types;
	}

	/**
	 * FROM and WHERE of the reports $user may see (no templates), with their object (co, fa, pr),
	 * its third party (s) and the author (u).
	 *
	 * @param User $user User
	 * @return string
	 */
	public function fromWhere($user)
	{
		$p = $this->db->prefix();
		$sql = " FROM ".$p."bericht as b";
		foreach (self::ELEMENTS as $type => $e) {
			$sql .= " LEFT JOIN ".$p.$e['table']." as ".$e['alias']." ON b.element_type = '".$type."' AND ".$e['alias'].".rowid = b.fk_element";
			$sql .= " AND ".$e['alias'].".entity IN (".getEntity($e['table']).")";
		}
		$sql .= " LEFT JOIN ".$p."societe as s ON s.rowid = COALESCE(co.fk_soc, fa.fk_soc, pr.fk_soc)";
		$sql .= " LEFT JOIN ".$p."user as u ON u.rowid = b.fk_user_creat";
		$sql .= " WHERE b.entity = ".((int) $this->entity)." AND b.is_template = 0";

		$visible = array();
		foreach ($this->readableElements($user) as $type) {
			$visible[] = "(b.element_type = '".$type."' AND ".self::ELEMENTS[$type]['alias'].".rowid IS NOT NULL)";
		}
		$sql .= ($visible ? " AND (".implode(" OR ", $visible).")" : " AND 1 = 0");
		if ($user->socid > 0) {
			$sql .= " AND s.rowid = ".((int) $user->socid);
		} elseif (!$user->hasRight('societe', 'client', 'voir')) {
			$sql .= " AND s.rowid IN (SELECT sc.fk_soc FROM ".$p."societe_commerciaux as sc WHERE sc.fk_user = ".((int) $user->id).")";
		}
		return $sql;
	}

	/**
	 * WHERE conditions of the list's filters. Unknown or malformed values are ignored.
	 *
	 * @param array{status?:string,element?:string,user?:int,societe?:string,text?:string,date_start?:int|string,date_end?:int|string} $filters Filters
	 * @return string
	 */
	public function filterSql($filters)
	{
		$sql = '';
		if (isset($filters['status']) && ($filters['status'] === '0' || $filters['status'] === '1')) {
			$sql .= " AND b.status = ".((int) $filters['status']);
		}
		if (!empty($filters['element']) && isset(self::ELEMENTS[$filters['element']])) {
			$sql .= " AND b.element_type = '".$this->db->escape($filters['element'])."'";
		}
		if (!empty($filters['user']) && (int) $filters['user'] > 0) {
			$sql .= " AND b.fk_user_creat = ".((int) $filters['user']);
		}
		if (isset($filters['societe']) && trim($filters['societe']) !== '') {
			$sql .= " AND s.nom LIKE '%".$this->db->escape($this->db->escapeforlike(trim($filters['societe'])))."%'";
		}
		if (isset($filters['text']) && trim($filters['text']) !== '') {
			$like = "'%".$this->db->escape($this->db->escapeforlike(trim($filters['text'])))."%'";
			$sql .= " AND (b.ref LIKE ".$like." OR b.title LIKE ".$like.")";
		}
		// The service writes its times in UTC: the day boundaries of the user are turned into UTC.
		if (!empty($filters['date_start'])) {
			$sql .= " AND b.datec >= '".$this->db->escape(gmdate('Y-m-d H:i:s', (int) $filters['date_start']))."'";
		}
		if (!empty($filters['date_end'])) {
			$sql .= " AND b.datec <= '".$this->db->escape(gmdate('Y-m-d H:i:s', (int) $filters['date_end']))."'";
		}
		return $sql;
	}

	/**
	 * One page of the reports $user may see, with the list's filters.
	 *
	 * @param User   $user      User
	 * @param array  $filters   see filterSql()
	 * @param string $sortfield A key of SORTFIELDS
	 * @param string $sortorder ASC or DESC
	 * @param int    $limit     Rows a page (0: all)
	 * @param int    $offset    First row
	 * @return array{rows:array<int,object>,total:int}|int<-1,-1> Rows with their details, and the count of all matching rows; -1 on error
	 */
	public function fetchList($user, $filters, $sortfield, $sortorder, $limit, $offset)
	{
		$from = $this->fromWhere($user).$this->filterSql($filters);
		$resql = $this->db->query("SELECT COUNT(b.rowid) as nb".$from);
		if (!$resql) {
			$this->error = $this->db->lasterror();
			return -1;
		}
		$obj = $this->db->fetch_object($resql);
		$total = (int) $obj->nb;
		$this->db->free($resql);

		$order = isset(self::SORTFIELDS[$sortfield]) ? self::SORTFIELDS[$sortfield] : 'b.datec';
		$dir = (strtoupper((string) $sortorder) === 'ASC' ? 'ASC' : 'DESC');
		$sql = $this->selectSql().$from." ORDER BY ".$order." ".$dir.", b.rowid ".$dir;
		if ($limit > 0) {
			$sql .= $this->db->plimit((int) $limit, (int) $offset);
		}
		$rows = $this->fetchRows($sql);
		if (!is_array($rows)) {
			return -1;
		}
		return array('rows' => $rows, 'total' => $total);
	}

	/**
	 * The reports of one object that $user may see, newest first.
	 *
	 * @param User   $user    User
	 * @param string $element 'commande', 'facture' or 'propal'
	 * @param int    $id      The object's rowid
	 * @return array<int,object>|int<-1,-1>
	 */
	public function fetchForObject($user, $element, $id)
	{
		if (!isset(self::ELEMENTS[$element])) {
			return array();
		}
		$sql = $this->selectSql().$this->fromWhere($user);
		$sql .= " AND b.element_type = '".$this->db->escape($element)."' AND b.fk_element = ".((int) $id);
		$sql .= " ORDER BY b.datec DESC, b.rowid DESC";
		return $this->fetchRows($sql);
	}

	/**
	 * @return string
	 */
	private function selectSql()
	{
		return "SELECT b.rowid, b.ref, b.title, b.status, b.version, b.fk_bericht_parent, b.element_type, b.fk_element, b.final_pdf_path,"
			." b.fk_user_creat, b.datec, b.tms, u.login as user_login, u.firstname as user_firstname, u.lastname as user_lastname,"
			." s.rowid as socid, s.nom as soc_name, COALESCE(co.ref, fa.ref, pr.ref) as parent_ref";
	}

	/**
	 * Runs $sql and adds to each report its page count, signatures, newest mail and newer version.
	 *
	 * @param string $sql Query
	 * @return array<int,object>|int<-1,-1>
	 */
	private function fetchRows($sql)
	{
		$resql = $this->db->query($sql);
		if (!$resql) {
			$this->error = $this->db->lasterror();
			return -1;
		}
		$rows = array();
		while ($obj = $this->db->fetch_object($resql)) {
			$obj->rowid = (int) $obj->rowid;
			$obj->nbpages = 0;
			$obj->signatures = array();
			$obj->mail = null;
			$obj->newer_ref = null;
			$rows[$obj->rowid] = $obj;
		}
		$this->db->free($resql);
		if (!$rows) {
			return array();
		}
		$ids = implode(',', array_map('intval', array_keys($rows)));
		$p = $this->db->prefix();

		$details = array(
			"SELECT fk_bericht, COUNT(rowid) as nb FROM ".$p."bericht_page WHERE fk_bericht IN (".$ids.") GROUP BY fk_bericht",
			"SELECT fk_bericht, signer_name, datec, verify_code FROM ".$p."bericht_signature WHERE fk_bericht IN (".$ids.") AND entity = ".((int) $this->entity)." ORDER BY datec, rowid",
			// Newest job first: only the first row of each report is kept.
			"SELECT fk_bericht, state, mail_to, datec, date_sent, error FROM ".$p."bericht_mail WHERE fk_bericht IN (".$ids.") AND entity = ".((int) $this->entity)." ORDER BY fk_bericht, datec DESC, rowid DESC",
			"SELECT fk_bericht_parent as fk_bericht, ref FROM ".$p."bericht WHERE fk_bericht_parent IN (".$ids.") AND entity = ".((int) $this->entity)." ORDER BY version DESC, rowid DESC",
		);
		foreach ($details as $n => $detail) {
			$resql = $this->db->query($detail);
			if (!$resql) {
				$this->error = $this->db->lasterror();
				return -1;
			}
			while ($obj = $this->db->fetch_object($resql)) {
				$row = $rows[(int) $obj->fk_bericht];
				if ($n == 0) {
					$row->nbpages = (int) $obj->nb;
				} elseif ($n == 1) {
					$row->signatures[] = $obj;
				} elseif ($n == 2 && $row->mail === null) {
					$row->mail = $obj;
				} elseif ($n == 3 && $row->newer_ref === null) {
					$row->newer_ref = $obj->ref;
				}
			}
			$this->db->free($resql);
		}
		return array_values($rows);
	}

	/**
	 * The authors of the reports $user may see, for the technician filter.
	 *
	 * @param User $user User
	 * @return array<int,string> rowid => name
	 */
	public function authors($user)
	{
		$sql = "SELECT DISTINCT u.rowid, u.login, u.firstname, u.lastname".$this->fromWhere($user)." AND u.rowid IS NOT NULL ORDER BY u.lastname, u.firstname";
		$resql = $this->db->query($sql);
		$authors = array();
		if ($resql) {
			while ($obj = $this->db->fetch_object($resql)) {
				$name = trim($obj->firstname.' '.$obj->lastname);
				$authors[(int) $obj->rowid] = ($name !== '' ? $name : $obj->login);
			}
			$this->db->free($resql);
		}
		return $authors;
	}

	/**
	 * The final PDF's name inside the module's documents folder (for document.php, modulepart
	 * bericht), or '' when the report has none or its path is not the service's.
	 *
	 * @param object $row A report row
	 * @return string
	 */
	public static function pdfFile($row)
	{
		$path = (string) $row->final_pdf_path;
		if ((int) $row->status !== 1 || !preg_match('/^bericht\/([^\/]+\/[^\/]+\.pdf)$/i', $path, $m) || strpos($path, '..') !== false) {
			return '';
		}
		return $m[1];
	}
}
