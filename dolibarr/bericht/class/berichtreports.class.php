<?php
/* fieldreport: the reports of the service as the office reads them in Dolibarr.
 *
 * Reads the service's tables (llx_bericht, llx_bericht_page, llx_bericht_signature,
 * llx_bericht_mail) through Dolibarr's database handler. Which reports a user sees follows
 * Dolibarr's rules for the report's object: the right to read orders, invoices, proposals or
 * interventions, the own third party for external users (and of theirs only final reports), and
 * the third parties the user is sales representative of when the user may not see all customers
 * (societe->client->voir). It writes only where Dolibarr acts on the reports' objects: a mail sent
 * with Dolibarr's own form (recordSentMail) and drafts deleted (deleteDraft).
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
		'commande' => array('table' => 'commande', 'right' => 'commande', 'sharing' => 'commande', 'alias' => 'co', 'card' => '/commande/card.php?id=', 'label' => 'CustomerOrder', 'picto' => 'order',
			'class' => 'Commande', 'file' => '/commande/class/commande.class.php', 'module' => 'commande', 'trackid' => 'ord', 'tab' => 'order'),
		'facture' => array('table' => 'facture', 'right' => 'facture', 'sharing' => 'invoice', 'alias' => 'fa', 'card' => '/compta/facture/card.php?id=', 'label' => 'InvoiceCustomer', 'picto' => 'bill',
			'class' => 'Facture', 'file' => '/compta/facture/class/facture.class.php', 'module' => 'facture', 'trackid' => 'inv', 'tab' => 'invoice'),
		'propal' => array('table' => 'propal', 'right' => 'propal', 'sharing' => 'propal', 'alias' => 'pr', 'card' => '/comm/propal/card.php?id=', 'label' => 'Proposal', 'picto' => 'propal',
			'class' => 'Propal', 'file' => '/comm/propal/class/propal.class.php', 'module' => 'propal', 'trackid' => 'pro', 'tab' => 'propal'),
		'fichinter' => array('table' => 'fichinter', 'right' => 'ficheinter', 'sharing' => 'intervention', 'alias' => 'fi', 'card' => '/fichinter/card.php?id=', 'label' => 'Intervention', 'picto' => 'intervention',
			'class' => 'Fichinter', 'file' => '/fichinter/class/fichinter.class.php', 'module' => 'ficheinter', 'trackid' => 'int', 'tab' => 'intervention'),
	);

	/** The parent object's columns, one per element type, in the order of ELEMENTS (for COALESCE and the search). */
	const PARENT_REF = 'COALESCE(co.ref, fa.ref, pr.ref, fi.ref)';
	const PARENT_REF_CLIENT = 'COALESCE(co.ref_client, fa.ref_client, pr.ref_client, fi.ref_client)';

	/** The list's sortable columns: request value => SQL. Anything else sorts by creation date. */
	const SORTFIELDS = array(
		'b.ref' => 'b.ref', 'b.title' => 'b.title', 'b.status' => 'b.status', 'b.datec' => 'b.datec', 'b.tms' => 'b.tms',
		'b.version' => 'b.version', 'u.lastname' => 'u.lastname', 's.nom' => 's.nom', 'parent_ref' => 'parent_ref', 'parent_ref_client' => 'parent_ref_client',
	);

	/** @var DoliDB */
	public $db;
	/** @var int */
	public $entity;
	/** @var string SQL error of the last failed query */
	public $error = '';

	/**
	 * @param DoliDB   $db     Database handler
	 * @param int|null $entity Entity of the reports (the current one when not given, as Dolibarr's
	 *                         tabs construct the class to count the reports for the badge)
	 */
	public function __construct($db, $entity = null)
	{
		global $conf;
		$this->db = $db;
		$this->entity = (int) ($entity === null ? $conf->entity : $entity);
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
			$sql .= " AND ".$e['alias'].".entity IN (".getEntity($e['sharing']).")";
		}
		$sql .= " LEFT JOIN ".$p."societe as s ON s.rowid = COALESCE(co.fk_soc, fa.fk_soc, pr.fk_soc, fi.fk_soc)";
		$sql .= " LEFT JOIN ".$p."user as u ON u.rowid = b.fk_user_creat";
		$sql .= " WHERE b.entity = ".((int) $this->entity)." AND b.is_template = 0";

		$visible = array();
		foreach ($this->readableElements($user) as $type) {
			$visible[] = "(b.element_type = '".$type."' AND ".self::ELEMENTS[$type]['alias'].".rowid IS NOT NULL)";
		}
		$sql .= ($visible ? " AND (".implode(" OR ", $visible).")" : " AND 1 = 0");
		if ($user->socid > 0) {
			// An external user (a customer's login) sees the final reports of their own third party, never drafts.
			$sql .= " AND s.rowid = ".((int) $user->socid)." AND b.status = 1";
		} elseif (!$user->hasRight('societe', 'client', 'voir')) {
			$sql .= " AND s.rowid IN (SELECT sc.fk_soc FROM ".$p."societe_commerciaux as sc WHERE sc.fk_user = ".((int) $user->id).")";
		}
		return $sql;
	}

	/**
	 * WHERE conditions of the list's filters. Unknown or malformed values are ignored. Text is
	 * searched as Dolibarr's lists search it (natural_search: words, "|" for either, "!" for not).
	 *
	 * @param array{status?:string,element?:string,user?:int,societe?:string,text?:string,ref?:string,parent?:string,ref_client?:string,all?:string,date_start?:int|string,date_end?:int|string} $filters Filters
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
		$refs = array('co.ref', 'fa.ref', 'pr.ref', 'fi.ref');
		$refclients = array('co.ref_client', 'fa.ref_client', 'pr.ref_client', 'fi.ref_client');
		$columns = array(
			'societe' => array('s.nom'),
			'ref' => array('b.ref', 'b.title'),
			'parent' => $refs,
			'ref_client' => $refclients,
			// The search in all columns: Dolibarr's search_all, and the older single field of the list.
			'text' => array_merge(array('b.ref', 'b.title'), $refs, $refclients),
			'all' => array_merge(array('b.ref', 'b.title', 's.nom'), $refs, $refclients),
		);
		foreach ($columns as $key => $fields) {
			if (isset($filters[$key]) && trim((string) $filters[$key]) !== '') {
				$sql .= $this->naturalSearch($fields, trim((string) $filters[$key]));
			}
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
	 * Dolibarr's natural_search over $fields. On MariaDB/MySQL, a value with a character beyond the
	 * Basic Multilingual Plane (an emoji) cannot be compared as Dolibarr sends it: its connection is
	 * utf8 (3 bytes a character) while the service's tables are utf8mb4, and the server refuses the
	 * comparison ("Illegal mix of collations"). Such a value is compared in utf8mb4 on both sides
	 * (the column converted, the text marked as utf8mb4), whatever the character sets of the
	 * columns and of the connection. PostgreSQL compares in the database's encoding and needs nothing.
	 *
	 * @param string[] $fields Columns (alias.column)
	 * @param string   $value  What the user typed
	 * @return string " AND (...)"
	 */
	public function naturalSearch($fields, $value)
	{
		$mysql = in_array((string) $this->db->type, array('mysql', 'mysqli'), true);
		if (!$mysql || !preg_match('/[\x{10000}-\x{10FFFF}]/u', $value)) {
			return natural_search($fields, $value);
		}
		// The same search on stand-in names, which are then replaced by the converted columns.
		$names = array();
		foreach (array_values($fields) as $i => $field) {
			$names['berichtsearchcolumn'.$i.'x'] = $field;
		}
		$sql = natural_search(array_keys($names), $value);
		$sql = preg_replace_callback('/\b(berichtsearchcolumn\d+x)( NOT LIKE \'| LIKE \'| IS NULL)/', function ($m) use ($names) {
			$operand = 'CONVERT('.$names[$m[1]].' USING utf8mb4)';
			return $operand.($m[2] === ' IS NULL' ? $m[2] : substr($m[2], 0, -1)."_utf8mb4'");
		}, $sql);
		return $sql;
	}

	/**
	 * One page of the reports $user may see, with the list's filters. As Dolibarr's lists, it
	 * fetches one row more than a page holds, so the list knows there is a next page.
	 *
	 * @param User   $user      User
	 * @param array  $filters   see filterSql()
	 * @param string $sortfield A key of SORTFIELDS
	 * @param string $sortorder ASC or DESC
	 * @param int    $limit     Rows a page (0: all)
	 * @param int    $offset    First row
	 * @return array{rows:array<int,object>,total:int}|int<-1,-1> Up to $limit + 1 rows with their details, and the count of all matching rows; -1 on error
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
			$sql .= $this->db->plimit((int) $limit + 1, (int) $offset);
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
	 * @param string $element 'commande', 'facture', 'propal' or 'fichinter'
	 * @param int    $id      The object's rowid
	 * @return array<int,object>|int<-1,-1>
	 */
	public function fetchForObject($user, $element, $id)
	{
		if (!isset(self::ELEMENTS[$element])) {
			return array();
		}
		$sql = $this->selectSql().$this->fromWhere($user)." AND ".$this->ofObject($element, $id);
		$sql .= " ORDER BY b.datec DESC, b.rowid DESC";
		return $this->fetchRows($sql);
	}

	/**
	 * The reports the tab of an object lists: its own, and on an invoice or an intervention also
	 * the reports whose time and parts went on it (a visit on an order billed there, recorded there).
	 * Each still seen only as its own object allows (fromWhere).
	 *
	 * @param string $element Element type
	 * @param int    $id      The object's rowid
	 * @return string SQL condition
	 */
	private function ofObject($element, $id)
	{
		$own = "(b.element_type = '".$this->db->escape($element)."' AND b.fk_element = ".((int) $id).")";
		$went = array('facture' => 'b.fk_facture', 'fichinter' => 'b.fk_fichinter');
		return isset($went[$element]) && $id > 0 ? "(".$own." OR ".$went[$element]." = ".((int) $id).")" : $own;
	}

	/**
	 * The reports of selected rows that $user may see (mass actions).
	 *
	 * @param User  $user User
	 * @param int[] $ids  rowids
	 * @return array<int,object>|int<-1,-1>
	 */
	public function fetchSelected($user, $ids)
	{
		$ids = array_filter(array_map('intval', (array) $ids));
		if (!$ids) {
			return array();
		}
		$sql = $this->selectSql().$this->fromWhere($user)." AND b.rowid IN (".implode(',', $ids).") ORDER BY b.ref, b.rowid";
		return $this->fetchRows($sql);
	}

	/**
	 * How many reports of the object $user sees: the badge of the "Berichte" tab. Dolibarr's tabs
	 * (complete_head_from_modules) call it with the object's id, one method per element type.
	 *
	 * @param string $element Element type
	 * @param int    $id      The object's rowid
	 * @return int
	 */
	public function countFor($element, $id)
	{
		global $user;
		if (!isset(self::ELEMENTS[$element]) || !is_object($user)) {
			return 0;
		}
		$sql = "SELECT COUNT(b.rowid) as nb".$this->fromWhere($user)." AND ".$this->ofObject($element, $id);
		$resql = $this->db->query($sql);
		$obj = $resql ? $this->db->fetch_object($resql) : null;
		return $obj ? (int) $obj->nb : 0;
	}

	/**
	 * @param int $id Order id
	 * @return int
	 */
	public function countCommande($id)
	{
		return $this->countFor('commande', $id);
	}

	/**
	 * @param int $id Invoice id
	 * @return int
	 */
	public function countFacture($id)
	{
		return $this->countFor('facture', $id);
	}

	/**
	 * @param int $id Proposal id
	 * @return int
	 */
	public function countPropal($id)
	{
		return $this->countFor('propal', $id);
	}

	/**
	 * @param int $id Intervention id
	 * @return int
	 */
	public function countFichinter($id)
	{
		return $this->countFor('fichinter', $id);
	}

	/**
	 * The final reports of an object, each report once: the newest final version of each chain of
	 * versions (a version points at the one it was made from with fk_bericht_parent). No rights
	 * are checked: for the object's own e-mail form and its trigger.
	 *
	 * @param string $element Element type
	 * @param int    $id      The object's rowid
	 * @param bool   $all     Every final version, not only the newest of each report
	 * @return array<int,object>|int<-1,-1> rowid, ref, status, final_pdf_path, fk_bericht_parent, version; oldest report first
	 */
	public function finalReportsOf($element, $id, $all = false)
	{
		if (!isset(self::ELEMENTS[$element])) {
			return array();
		}
		$sql = "SELECT b.rowid, b.ref, b.status, b.version, b.fk_bericht_parent, b.final_pdf_path FROM ".$this->db->prefix()."bericht as b";
		$sql .= " WHERE b.element_type = '".$this->db->escape($element)."' AND b.fk_element = ".((int) $id);
		$sql .= " AND b.is_template = 0 AND b.entity = ".((int) $this->entity);
		$sql .= " ORDER BY b.rowid";
		$resql = $this->db->query($sql);
		if (!$resql) {
			$this->error = $this->db->lasterror();
			return -1;
		}
		$rows = array();
		while ($obj = $this->db->fetch_object($resql)) {
			$rows[(int) $obj->rowid] = $obj;
		}
		$this->db->free($resql);
		if ($all) {
			return array_values(array_filter($rows, function ($obj) {
				return (int) $obj->status === 1;
			}));
		}
		// The first version of each chain, found by following the parents.
		$roots = array();
		foreach ($rows as $rowid => $obj) {
			$root = $rowid;
			$seen = array();
			while ($rows[$root]->fk_bericht_parent !== null && isset($rows[(int) $rows[$root]->fk_bericht_parent]) && !isset($seen[$root])) {
				$seen[$root] = true;
				$root = (int) $rows[$root]->fk_bericht_parent;
			}
			$roots[$rowid] = $root;
		}
		$newest = array();
		foreach ($rows as $rowid => $obj) {
			if ((int) $obj->status !== 1) {
				continue;
			}
			$root = $roots[$rowid];
			if (!isset($newest[$root]) || (int) $obj->version > (int) $newest[$root]->version || ((int) $obj->version === (int) $newest[$root]->version && $rowid > (int) $newest[$root]->rowid)) {
				$newest[$root] = $obj;
			}
		}
		ksort($newest);
		return array_values($newest);
	}

	/**
	 * Records a mail Dolibarr sent itself (its "send by e-mail" form) with a report's PDF attached,
	 * as the service records its own: a row of llx_bericht_mail in state 'sent', so the tab and
	 * the list show the report as sent. The service's queue takes only rows in 'queued' or
	 * 'sending': this row is never sent again.
	 *
	 * @param int                 $reportid The report
	 * @param array<string,mixed> $mail     to, cc, bcc, subject, body, msgid, user (id), ip, actioncomm (event id or null)
	 * @return int rowid of the row, -1 on error
	 */
	public function recordSentMail($reportid, $mail)
	{
		$now = gmdate('Y-m-d H:i:s');
		$text = function ($value, $max = 0) {
			$value = (string) $value;
			return $max > 0 && function_exists('mb_substr') ? mb_substr($value, 0, $max, 'UTF-8') : $value;
		};
		$nullable = function ($value, $max) use ($text) {
			return ((string) $value === '') ? 'NULL' : "'".$this->db->escape($text($value, $max))."'";
		};
		$sql = "INSERT INTO ".$this->db->prefix()."bericht_mail (entity, fk_bericht, state, mail_to, mail_cc, mail_bcc, subject, body, lang, attempts,";
		$sql .= " next_attempt_at, expires_at, message_id, fk_actioncomm, fk_user_author, ip, datec, date_sent, tms) VALUES (";
		$sql .= ((int) $this->entity).", ".((int) $reportid).", 'sent', '".$this->db->escape($text($mail['to']))."', ".$nullable($mail['cc'], 0).", ".$nullable($mail['bcc'], 0).",";
		$sql .= " '".$this->db->escape($text($mail['subject'], 255))."', '".$this->db->escape($text($mail['body']))."', NULL, 1,";
		$sql .= " '".$now."', '".$now."', ".$nullable($mail['msgid'], 255).", ".(empty($mail['actioncomm']) ? 'NULL' : (int) $mail['actioncomm']).",";
		$sql .= " ".((int) $mail['user']).", ".$nullable($mail['ip'], 250).", '".$now."', '".$now."', '".$now."')";
		if (!$this->db->query($sql)) {
			$this->error = $this->db->lasterror();
			return -1;
		}
		return (int) $this->db->last_insert_id($this->db->prefix().'bericht_mail');
	}

	/**
	 * The reports of an object, for deleting it: its drafts and its final reports (templates are no object's).
	 *
	 * @param string $element Element type
	 * @param int    $id      The object's rowid
	 * @return array{drafts:array<int,object>,finals:array<int,object>}|int<-1,-1>
	 */
	public function reportsOfObject($element, $id)
	{
		$sql = "SELECT b.rowid, b.ref, b.status, b.fk_bericht_parent FROM ".$this->db->prefix()."bericht as b";
		$sql .= " WHERE b.element_type = '".$this->db->escape($element)."' AND b.fk_element = ".((int) $id);
		$sql .= " AND b.is_template = 0 AND b.entity = ".((int) $this->entity)." ORDER BY b.rowid";
		$resql = $this->db->query($sql);
		if (!$resql) {
			$this->error = $this->db->lasterror();
			return -1;
		}
		$out = array('drafts' => array(), 'finals' => array());
		while ($obj = $this->db->fetch_object($resql)) {
			$out[(int) $obj->status === 1 ? 'finals' : 'drafts'][] = $obj;
		}
		$this->db->free($resql);
		return $out;
	}

	/**
	 * Deletes a draft report as the service deletes one: its pages, signatures and the evidence and
	 * ecm_files rows of its work folder (documents/bericht/<ref>/), newer versions pointed at its
	 * parent, the report's row; the folder itself is deleted by the caller once the database
	 * change is committed (deleteDraftFiles). A final report, or a draft whose folder holds images
	 * that pages of other reports show, is not deleted.
	 *
	 * @param int $rowid The report
	 * @return string|int The report's ref when deleted; 0 when it is not a draft of this entity or other reports show its images; -1 on error
	 */
	public function deleteDraft($rowid)
	{
		$p = $this->db->prefix();
		$resql = $this->db->query("SELECT rowid, ref, status, is_template, fk_bericht_parent FROM ".$p."bericht WHERE rowid = ".((int) $rowid)." AND entity = ".((int) $this->entity));
		$row = $resql ? $this->db->fetch_object($resql) : null;
		if (!$resql) {
			$this->error = $this->db->lasterror();
			return -1;
		}
		if (!$row || (int) $row->status !== 0 || (int) $row->is_template !== 0 || !self::isPlainRef((string) $row->ref)) {
			return 0;
		}
		$folder = 'bericht/'.$row->ref;
		$resql = $this->db->query("SELECT COUNT(rowid) as nb FROM ".$p."bericht_page WHERE fk_bericht <> ".((int) $row->rowid)
			." AND (source_path LIKE '".$this->db->escape($this->db->escapeforlike($folder.'/'))."%' OR source_path_2 LIKE '".$this->db->escape($this->db->escapeforlike($folder.'/'))."%')");
		$obj = $resql ? $this->db->fetch_object($resql) : null;
		if (!$obj || (int) $obj->nb > 0) {
			return 0;
		}
		$ecmpath = ($this->entity > 1 ? $this->entity.'/' : '').$folder;
		$parent = ($row->fk_bericht_parent === null ? 'NULL' : (int) $row->fk_bericht_parent);
		$sqls = array(
			"UPDATE ".$p."bericht SET fk_bericht_parent = ".$parent." WHERE fk_bericht_parent = ".((int) $row->rowid),
			"DELETE FROM ".$p."ecm_files WHERE entity = ".((int) $this->entity)." AND filepath = '".$this->db->escape($ecmpath)."'",
			"DELETE FROM ".$p."bericht_photo_evidence WHERE entity = ".((int) $this->entity)." AND filepath = '".$this->db->escape($ecmpath)."'",
			"DELETE FROM ".$p."bericht_signature WHERE fk_bericht = ".((int) $row->rowid),
			"DELETE FROM ".$p."bericht_page WHERE fk_bericht = ".((int) $row->rowid),
			"DELETE FROM ".$p."bericht WHERE rowid = ".((int) $row->rowid)." AND status = 0",
		);
		foreach ($sqls as $sql) {
			if (!$this->db->query($sql)) {
				$this->error = $this->db->lasterror();
				return -1;
			}
		}
		return (string) $row->ref;
	}

	/**
	 * Deletes the work folders of deleted drafts (documents/bericht/<ref>/) once the request ends,
	 * and only those whose report row is gone then: when Dolibarr rolls back the deletion of their
	 * object after the trigger ran (an order with shipments is not deleted), the drafts come back
	 * with their files.
	 *
	 * @param string[] $refs Refs deleteDraft() returned
	 * @param string   $dir  The module's documents folder of the entity
	 * @return void
	 */
	public function deleteDraftFiles($refs, $dir)
	{
		$refs = array_values(array_filter((array) $refs, array(__CLASS__, 'isPlainRef')));
		if (!$refs || $dir === '') {
			return;
		}
		$db = $this->db;
		$entity = $this->entity;
		register_shutdown_function(function () use ($db, $entity, $refs, $dir) {
			global $conf, $dolibarr_main_db_pass;
			// Dolibarr's own shutdown function (dol_shutdown, registered first) has closed its
			// connection by now: the question is asked on a new one, as Dolibarr opens them (the
			// password as conf.php gives it, decoded; Dolibarr keeps it for such pages).
			$own = false;
			if (empty($db->connected) && function_exists('getDoliDBInstance') && isset($conf->db->type)) {
				$pass = isset($conf->db->pass) ? $conf->db->pass : (string) $dolibarr_main_db_pass;
				$db = getDoliDBInstance($conf->db->type, $conf->db->host, $conf->db->user, $pass, $conf->db->name, (int) $conf->db->port);
				$own = true;
			}
			if (!is_object($db) || empty($db->connected)) {
				return;
			}
			foreach ($refs as $ref) {
				$resql = $db->query("SELECT rowid FROM ".$db->prefix()."bericht WHERE ref = '".$db->escape($ref)."' AND entity = ".((int) $entity));
				if (!$resql || $db->fetch_object($resql)) {
					continue;
				}
				$folder = rtrim($dir, '/').'/'.$ref;
				if (is_dir($folder) && !is_link($folder)) {
					dol_delete_dir_recursive($folder, 0, 1, 0, $count, 0, 1);
				}
			}
			if ($own) {
				$db->close();
			}
		});
	}

	/**
	 * A ref the service made (a folder name of its own, no path).
	 *
	 * @param string $ref Ref
	 * @return bool
	 */
	public static function isPlainRef($ref)
	{
		return $ref !== '' && $ref !== '.' && $ref !== '..' && $ref !== 'temp' && !preg_match('/[\/\\\\\x00-\x1f]/', $ref);
	}

	/**
	 * @return string
	 */
	private function selectSql()
	{
		return "SELECT b.rowid, b.ref, b.title, b.status, b.version, b.fk_bericht_parent, b.element_type, b.fk_element, b.final_pdf_path, b.fk_fichinter, b.fk_facture,"
			." b.fk_user_creat, b.datec, b.tms, u.login as user_login, u.firstname as user_firstname, u.lastname as user_lastname,"
			." s.rowid as socid, s.nom as soc_name, s.client as soc_client, s.status as soc_status,"
			." ".self::PARENT_REF." as parent_ref, ".self::PARENT_REF_CLIENT." as parent_ref_client,"
			." COALESCE(co.fk_statut, fa.fk_statut, pr.fk_statut, fi.fk_statut) as parent_status, COALESCE(co.entity, fa.entity, pr.entity, fi.entity) as parent_entity";
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
