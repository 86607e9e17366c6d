<?php
/* fieldreport: hooks of the module.
 *
 * This program is free software: GNU General Public License, version 3 or later.
 */

require_once __DIR__.'/../lib/bericht.lib.php';
require_once __DIR__.'/berichtreports.class.php';

/**
 * Hook checkSecureAccess (document.php, viewimage.php, the REST API's documents): Dolibarr's generic
 * case lets every user with the right bericht read open any file below <documents>/bericht, and it
 * takes a hook's "nothing found" as allowed. This hook therefore decides itself and fails closed:
 * a path that Dolibarr would resolve below a bericht folder (or any modulepart of this module) is
 * served only when, read as the file system reads it, it names a file of one report
 * (<ref>/<file> or <ref>/thumbs/<file>) that the user may read as the module's list shows it
 * (object rights, an external user's own third party, sales representative), in the entity the
 * link names and the user works in. Everything else is refused with 403: work files (temp/, print
 * copies, run markers, temporary names), the module's other moduleparts (bericht_temp, ...), paths
 * that climb, hold encoded or control characters, or name no report, another customer's or
 * another entity's report.
 *
 * The Dolibarr module's getFormMail hook is below.
 */
class ActionsBericht
{
	/**
	 * The moduleparts Dolibarr's generic case makes of this module's name (bericht-<sub> reaches the
	 * hook as bericht; bericht-temp is listed for callers that do not split it). Other modules'
	 * moduleparts, even those holding the word (arbeitsbericht), are not this hook's business.
	 */
	const MODULEPARTS = array('bericht', 'bericht_temp', 'bericht-temp', 'bericht_user', 'bericht_user_temp', 'massfilesarea_bericht');

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
	 * The segments of a path as the file system resolves it: backslashes are separators, empty and
	 * "." segments vanish, ".." removes the segment before it. null when the path cannot be read
	 * plainly: it climbs above its start, holds a control character, or a percent- or
	 * entity-encoded character (no file the module serves has one, so such a path is refused
	 * rather than guessed at).
	 *
	 * @param string $path Path
	 * @return string[]|null
	 */
	public static function pathSegments($path)
	{
		$path = (string) $path;
		if ($path === '' || preg_match('/[\x00-\x1f\x7f]/', $path)) {
			return null;
		}
		if (rawurldecode($path) !== $path || html_entity_decode($path, ENT_QUOTES | ENT_HTML5, 'UTF-8') !== $path) {
			return null;
		}
		$out = array();
		foreach (explode('/', str_replace('\\', '/', $path)) as $segment) {
			if ($segment === '' || $segment === '.') {
				continue;
			}
			if ($segment === '..') {
				if (!$out) {
					return null;
				}
				array_pop($out);
				continue;
			}
			$out[] = $segment;
		}
		return $out;
	}

	/**
	 * The module's documents folders Dolibarr knows: entity => the folder and its segments.
	 *
	 * @return array<int,array{0:string,1:string[]}>
	 */
	private function roots()
	{
		global $conf;
		$roots = array();
		$module = isset($conf->bericht) ? $conf->bericht : null;
		if (!$module) {
			return $roots;
		}
		if (!empty($module->multidir_output) && is_array($module->multidir_output)) {
			foreach ($module->multidir_output as $entity => $dir) {
				$segments = self::pathSegments((string) $dir);
				if ($segments) {
					$roots[(int) $entity] = array((string) $dir, $segments);
				}
			}
		}
		if (!empty($module->dir_output) && !isset($roots[(int) $conf->entity])) {
			$segments = self::pathSegments((string) $module->dir_output);
			if ($segments) {
				$roots[(int) $conf->entity] = array((string) $module->dir_output, $segments);
			}
		}
		return $roots;
	}

	/**
	 * @param array<string,mixed> $parameters modulepart, original_file (full path), entity, fuser
	 * @param object|null         $object     Current object
	 * @param string              $action     Current action
	 * @return int 0: not a file of this module; 1: allowed, results holds the file that was checked
	 *             (original_file) and, for external users, sqlprotectagainstexternals; a refusal
	 *             ends the request with 403
	 */
	public function checkSecureAccess($parameters, &$object, &$action)
	{
		global $conf, $user;
		$modulepart = (string) ($parameters['modulepart'] ?? '');
		$fuser = is_object($parameters['fuser'] ?? null) ? $parameters['fuser'] : $user;
		$segments = self::pathSegments((string) ($parameters['original_file'] ?? ''));

		// Below which of the module's folders does the path lie (as the file system resolves it)?
		$entity = null;
		$rest = null;
		if ($segments !== null) {
			foreach ($this->roots() as $rootEntity => $root) {
				if (count($segments) > count($root[1]) && array_slice($segments, 0, count($root[1])) === $root[1]) {
					$entity = $rootEntity;
					$rest = array_slice($segments, count($root[1]));
					break;
				}
			}
		}
		if ($rest === null && !in_array(strtolower($modulepart), self::MODULEPARTS, true)) {
			return 0;
		}
		// Only reading: document.php and viewimage.php ask with mode 'read' (their default), the
		// REST API's upload and builddoc with 'write' (and write whatever the answer). The REST API's
		// DELETE asks with 'read' and then deletes the file itself: in the API only GET is served.
		$mode = $parameters['mode'] ?? null;
		if ($mode !== null && $mode !== '' && $mode !== 'read') {
			return $this->refuse();
		}
		if (in_array('api', explode(':', (string) ($parameters['context'] ?? '')), true) && strtoupper((string) ($_SERVER['REQUEST_METHOD'] ?? '')) !== 'GET') {
			return $this->refuse();
		}

		// Only the modulepart bericht serves files; bericht_temp, bericht_user, massfilesarea_bericht
		// and the like lead to work folders.
		if ($modulepart !== 'bericht' || $rest === null || !is_object($fuser)) {
			return $this->refuse();
		}
		if ((int) $entity !== (int) ($parameters['entity'] ?? 0) || !in_array((string) $entity, array_map('trim', explode(',', (string) getEntity('bericht'))), true)) {
			return $this->refuse();
		}
		// <ref>/<file> or <ref>/thumbs/<file> (Dolibarr's thumbnails); temp/ and anything else is no report's.
		if (!(count($rest) === 2 || (count($rest) === 3 && $rest[1] === 'thumbs'))) {
			return $this->refuse();
		}
		$ref = $rest[0];
		$name = $rest[count($rest) - 1];
		// A leading dot: the service's temporary names while a file is written; Dolibarr's file names never hold these characters.
		if ($ref === 'temp' || $name[0] === '.' || preg_match('/[:*?"<>|]/', $ref.$name)) {
			return $this->refuse();
		}
		if (empty($fuser->admin) && !$fuser->hasRight('bericht', 'read')) {
			return $this->refuse();
		}
		// An external user gets the report's PDF and its images, not the signature's metadata (IP
		// address, position, verify code) or its strokes (*.json).
		if (!empty($fuser->socid) && !preg_match('/\.(pdf|png|jpe?g|gif|webp)$/i', $name)) {
			return $this->refuse();
		}

		$p = $this->db->prefix();
		$resql = $this->db->query("SELECT b.rowid, b.ref, b.is_template FROM ".$p."bericht as b WHERE b.ref = '".$this->db->escape($ref)."' AND b.entity = ".((int) $entity));
		$report = $resql ? $this->db->fetch_object($resql) : null;
		// The database may compare case- or trailing-space-insensitively; the folder must be the ref itself.
		if (!$report || (string) $report->ref !== $ref) {
			return $this->refuse();
		}
		if (!empty($report->is_template)) {
			// A template belongs to no customer: only the office sees its images.
			if (!empty($fuser->socid)) {
				return $this->refuse();
			}
		} else {
			$reports = new BerichtReports($this->db, (int) $entity);
			$resql = $this->db->query("SELECT b.rowid".$reports->fromWhere($fuser)." AND b.rowid = ".((int) $report->rowid));
			if (!$resql || !$this->db->fetch_object($resql)) {
				return $this->refuse();
			}
		}

		// What Dolibarr serves is the file that was checked, whatever spelling reached the hook.
		$root = $this->roots()[$entity][0];
		$this->results = array('original_file' => rtrim($root, '/\\').'/'.implode('/', $rest));
		if (!empty($fuser->socid)) {
			// document.php and viewimage.php compare it with the external user's third party as well.
			$sql = "SELECT COALESCE(co.fk_soc, fa.fk_soc, pr.fk_soc, fi.fk_soc, 0) as fk_soc FROM ".$p."bericht as b";
			$sql .= " LEFT JOIN ".$p."commande as co ON b.element_type = 'commande' AND co.rowid = b.fk_element";
			$sql .= " LEFT JOIN ".$p."facture as fa ON b.element_type = 'facture' AND fa.rowid = b.fk_element";
			$sql .= " LEFT JOIN ".$p."propal as pr ON b.element_type = 'propal' AND pr.rowid = b.fk_element";
			$sql .= " LEFT JOIN ".$p."fichinter as fi ON b.element_type = 'fichinter' AND fi.rowid = b.fk_element";
			$sql .= " WHERE b.rowid = ".((int) $report->rowid);
			$this->results['sqlprotectagainstexternals'] = $sql;
		}
		return 1;
	}

	/**
	 * Refuses the file: Dolibarr's httponly_accessforbidden, HTTP 403 and the end of the request
	 * (document.php's own refusal, accessforbidden(), answers 200 with an error page). Dolibarr
	 * cannot be told "refused" through a hook's results (it reads accessallowed only when it is not
	 * empty), so should a caller go on without its security library, what is handed back names no
	 * file (a path with '..', which document.php, viewimage.php and the REST API refuse) and makes
	 * the check of external users refuse too.
	 *
	 * @return int 1
	 */
	private function refuse()
	{
		global $langs;
		$this->results = array('original_file' => '/nonexistent/../bericht-refused', 'sqlprotectagainstexternals' => 'SELECT -1 as fk_soc');
		if (function_exists('httponly_accessforbidden')) {
			$message = 'Access to this file is refused';
			if (is_object($langs)) {
				$langs->loadLangs(array('bericht@bericht'));
				$message = $langs->transnoentitiesnoconv('BerichtFileRefused');
			}
			httponly_accessforbidden($message, 403);
		}
		return 1;
	}

	/**
	 * Hook deleteFile (Dolibarr's dol_delete_file, context fileslib): the trash icon of an order's,
	 * invoice's, proposal's or intervention's document tab and card (and of the ECM screens), confirm_deletefile and
	 * remove_file, is refused
	 * for a file a signed report shows (a page before a signature page shows it, also as a
	 * checklist's photo), with words that name the report. The signature stays valid either way
	 * (the service keeps what a signature covers in the report's folder); this only says so before
	 * the office loses the photo from the order. Deleting a whole order, invoice or proposal is left
	 * alone.
	 *
	 * @param array<string,mixed> $parameters file (full path)
	 * @param object|null         $object     The object whose documents are shown
	 * @param string              $action     Current action
	 * @return int 0: delete as Dolibarr does; -1: refused (dol_delete_file deletes nothing)
	 */
	public function deleteFile($parameters, &$object, &$action)
	{
		global $conf, $langs;
		// confirm_deletefile: the documents tab (actions_linkedfiles.inc.php) and the ECM screens;
		// remove_file: the Documents block of an order's, invoice's or proposal's card (actions_builddoc.inc.php).
		if (!in_array(GETPOST('action', 'aZ09'), array('confirm_deletefile', 'remove_file'), true)) {
			return 0;
		}
		$file = str_replace('\\', '/', (string) ($parameters['file'] ?? ''));
		// The file as the service names it: <module folder>/<object ref>/<name>, relative to the entity's documents.
		$folders = array('commande' => 'commande', 'facture' => 'facture', 'propal' => 'propale', 'ficheinter' => 'ficheinter');
		$rel = null;
		$entity = (int) $conf->entity;
		foreach ($folders as $module => $folder) {
			$dirs = (isset($conf->$module->multidir_output) && is_array($conf->$module->multidir_output)) ? $conf->$module->multidir_output : array();
			foreach ($dirs as $dirEntity => $dir) {
				$dir = rtrim(str_replace('\\', '/', (string) $dir), '/').'/';
				if ($dir !== '/' && strpos($file, $dir) === 0) {
					$rel = $folder.'/'.substr($file, strlen($dir));
					$entity = (int) $dirEntity;
					break 2;
				}
			}
		}
		if ($rel === null) {
			return 0;
		}
		$p = $this->db->prefix();
		$quoted = "'".$this->db->escape($rel)."'";
		$sql = "SELECT DISTINCT b.ref FROM ".$p."bericht_page as pg INNER JOIN ".$p."bericht as b ON b.rowid = pg.fk_bericht";
		$sql .= " WHERE b.entity = ".((int) $entity);
		$sql .= " AND (pg.source_path = ".$quoted." OR pg.source_path_2 = ".$quoted;
		$sql .= " OR pg.checklist LIKE '%".$this->db->escape($this->db->escapeforlike(json_encode($rel, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE)))."%')";
		$sql .= " AND EXISTS (SELECT 1 FROM ".$p."bericht_page as sg WHERE sg.fk_bericht = pg.fk_bericht AND sg.layout = 'signature' AND sg.page_order > pg.page_order)";
		$sql .= " ORDER BY b.ref";
		$resql = $this->db->query($sql);
		if (!$resql) {
			return 0;
		}
		$refs = array();
		while ($obj = $this->db->fetch_object($resql)) {
			$refs[] = $obj->ref;
		}
		if (!$refs) {
			return 0;
		}
		$langs->loadLangs(array('bericht@bericht'));
		$message = $langs->trans('BerichtFileSigned', basename($file), implode(', ', $refs));
		$this->errors[] = $message;
		if (function_exists('setEventMessages')) {
			setEventMessages($message, null, 'errors');
		}
		return -1;
	}

	/**
	 * Hook getFormMail (Dolibarr's "send by e-mail" form of an order, invoice, proposal or
	 * intervention): when the form opens, every final report of the object is attached beside the
	 * object's own PDF (its copy in the object's documents), each report once in its newest final
	 * version. The clerk removes what he does not want, as any attachment. When the mail is sent,
	 * the module's trigger records it with the reports it carried.
	 *
	 * @param array<string,mixed> $parameters trackid (ord12, inv3, pro7, int5)
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
		$reg = array();
		if (!preg_match('/^(ord|inv|pro|int)(\d+)$/', (string) ($parameters['trackid'] ?? ''), $reg)) {
			return 0;
		}
		$element = '';
		foreach (BerichtReports::ELEMENTS as $type => $e) {
			if ($e['trackid'] === $reg[1]) {
				$element = $type;
			}
		}
		$p = $this->db->prefix();
		$resql = $this->db->query("SELECT o.ref, o.entity FROM ".$p.BerichtReports::ELEMENTS[$element]['table']." as o WHERE o.rowid = ".((int) $reg[2]));
		$parent = $resql ? $this->db->fetch_object($resql) : null;
		if (!$parent) {
			return 0;
		}
		$reports = new BerichtReports($this->db, $conf->entity);
		$finals = $reports->finalReportsOf($element, (int) $reg[2]);
		$dir = bericht_object_dir($element, $parent->ref, (int) $parent->entity);
		if (!is_array($finals) || $dir === '') {
			return 0;
		}
		foreach ($finals as $report) {
			$file = $dir.'/'.dol_sanitizeFileName($report->ref).'.pdf';
			if (is_readable($file)) {
				$object->add_attached_files($file, basename($file), 'application/pdf');
			}
		}
		return 0;
	}
}
