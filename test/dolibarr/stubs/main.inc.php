<?php
/* Stand-in for Dolibarr's main.inc.php, for the module's pages in tests (not Dolibarr's code).
 * Environment: FAKE_DB (SQLite file), FAKE_USER (JSON: id, admin, socid, rights "module.perm[.sub]"),
 * FAKE_GET (JSON request parameters, GET and POST alike), FAKE_DOCS (documents folder),
 * FAKE_QUERY_LOG (file: every query), FAKE_DB_TYPE (the handler's type, 'sqlite3' by default;
 * 'mysqli' makes the module write MariaDB's SQL, which SQLite cannot run: for tests of the SQL only).
 * FAKE_METHOD ('POST': a posted form, refused without the token as Dolibarr does).
 * Exit codes: 3 accessforbidden, 4 httponly_accessforbidden, 5 dol_print_error, 6 a POST without
 * the token; recordNotFound
 * ends with 0 after setting HTTP 404, as Dolibarr's does (the status is printed: "HTTP 404").
 */
error_reporting(E_ALL);
date_default_timezone_set('UTC');
// Output buffered, so that a page may still redirect after the stand-ins printed (Dolibarr keeps its messages in the session).
ob_start();
define('DOL_DOCUMENT_ROOT', __DIR__);
define('DOL_URL_ROOT', '');
define('DOL_DATA_ROOT', getenv('FAKE_DOCS'));

/**
 * MariaDB's utf8_unicode_ci as far as the module's checks meet it: case-insensitive, trailing spaces
 * ignored (PAD SPACE). Columns of the fixtures declared COLLATE utf8_unicode_ci compare this way.
 */
function fake_mariadb_collation($pdo)
{
	$pdo->sqliteCreateCollation('utf8_unicode_ci', function ($a, $b) {
		return strcmp(mb_strtolower(rtrim((string) $a, ' ')), mb_strtolower(rtrim((string) $b, ' ')));
	});
}

class DoliDB
{
	public $pdo;
	public $lasterror = '';
	/** @var string Dolibarr's name of the driver: mysqli, pgsql, sqlite3 */
	public $type = 'sqlite3';
	public $connected = true;
	public $transaction_opened = 0;
	public function __construct($file)
	{
		$this->type = getenv('FAKE_DB_TYPE') ?: 'sqlite3';
		$this->pdo = new PDO('sqlite:'.$file);
		$this->pdo->setAttribute(PDO::ATTR_ERRMODE, PDO::ERRMODE_SILENT);
		fake_mariadb_collation($this->pdo);
	}
	public function prefix()
	{
		return 'llx_';
	}
	public function query($sql)
	{
		if (getenv('FAKE_QUERY_LOG')) {
			file_put_contents(getenv('FAKE_QUERY_LOG'), $sql."\n", FILE_APPEND);
		}
		// SQLite locks the whole database in a write transaction: it has no row locks to ask for.
		$st = $this->pdo->query(preg_replace('/\s+FOR UPDATE$/', '', $sql));
		if (!$st) {
			$this->lasterror = implode(' ', $this->pdo->errorInfo());
			return false;
		}
		return $st;
	}
	public function fetch_object($st)
	{
		return $st->fetch(PDO::FETCH_OBJ);
	}
	public function num_rows($st)
	{
		return count($st->fetchAll());
	}
	public function free($st)
	{
		$st->closeCursor();
	}
	/** SQLite: a quote is doubled (MariaDB's driver escapes it with a backslash). */
	public function escape($s)
	{
		return str_replace("'", "''", (string) $s);
	}
	public function escapeforlike($s)
	{
		return str_replace(array('\\', '_', '%'), array('\\\\', '\_', '\%'), (string) $s);
	}
	public function plimit($limit = 0, $offset = 0)
	{
		return ' LIMIT '.((int) $limit).' OFFSET '.((int) $offset);
	}
	public function jdate($string, $gm = 'tzserver')
	{
		return $string ? strtotime($string.' UTC') : '';
	}
	public function lasterror()
	{
		return $this->lasterror;
	}
	/** As Dolibarr's: nested begin/commit count, only the outermost one talks to the database. */
	public function begin($textinlog = '')
	{
		if (!$this->transaction_opened) {
			$this->pdo->beginTransaction();
		}
		$this->transaction_opened++;
		return 1;
	}
	public function commit($log = '')
	{
		$this->transaction_opened--;
		if (!$this->transaction_opened) {
			$this->pdo->commit();
		}
		return 1;
	}
	/** As Dolibarr's: an inner rollback only counts down; the outermost one rolls back. */
	public function rollback($log = '')
	{
		if ($this->transaction_opened <= 1) {
			if ($this->transaction_opened === 1) {
				$this->pdo->rollBack();
			}
			$this->transaction_opened = 0;
		} else {
			$this->transaction_opened--;
		}
		return 1;
	}
	public function last_insert_id($tab, $fieldid = 'rowid')
	{
		return (int) $this->pdo->lastInsertId();
	}
	public function idate($param, $gm = 'tzserver')
	{
		return gmdate('Y-m-d H:i:s', $param);
	}
	public function close()
	{
	}
}

#[\AllowDynamicProperties]
class Conf
{
}

class User
{
	public $id; public $admin; public $socid; public $rights = array();
	/** @var stdClass The user's parameters (llx_user_param), as Dolibarr loads them */
	public $conf;
	public function hasRight($module, $perm, $sub = '')
	{
		$alias = array('read' => 'lire', 'lire' => 'read');
		foreach (array($perm, isset($alias[$perm]) ? $alias[$perm] : $perm) as $p) {
			if (in_array($module.'.'.$p.($sub !== '' ? '.'.$sub : ''), $this->rights, true)) {
				return true;
			}
		}
		return false;
	}
}

class Translate
{
	public $tab = array();
	public function loadLangs($list)
	{
		foreach ($list as $name) {
			if ($name === 'bericht@bericht') {
				foreach (file(__DIR__.'/custom/bericht/langs/de_DE/bericht.lang') as $line) {
					if (preg_match('/^(\w+)\s*=\s*(.*)$/', trim($line), $m)) {
						$this->tab[$m[1]] = $m[2];
					}
				}
			}
		}
	}
	public function trans($key, $p1 = '', $p2 = '')
	{
		return isset($this->tab[$key]) ? sprintf($this->tab[$key], $p1, $p2) : $key;
	}
	/** As trans, without HTML entities (Dolibarr's trans encodes them). */
	public function transnoentitiesnoconv($key, $p1 = '', $p2 = '')
	{
		return $this->trans($key, $p1, $p2);
	}
}

class HookManager
{
	/** @var array<string,mixed> What the hooks put into their ->results, merged as Dolibarr's HookManager merges it */
	public $resArray = array();
	/** @var string What the hooks print (their ->resprints), for the page to print */
	public $resPrint = '';
	/** @var object[] Action classes registered (Dolibarr's initHooks finds them by the modules' module_parts) */
	public $hooks = array();
	/** @var string[] The contexts initHooks was called with (Dolibarr hands them to the hooks as parameters['context']) */
	public $contextarray = array();
	public function initHooks($c)
	{
		$this->contextarray = array_values(array_unique(array_merge($this->contextarray, $c)));
	}
	/** As Dolibarr's: each hook's method runs; only what it puts into ->results reaches ->resArray. */
	public function executeHooks($method = '', $parameters = array(), &$object = null, &$action = '')
	{
		$this->resArray = array();
		$this->resPrint = '';
		$parameters['context'] = implode(':', $this->contextarray);
		$ret = 0;
		foreach ($this->hooks as $instance) {
			if (!method_exists($instance, $method)) {
				continue;
			}
			$instance->results = array();
			$r = $instance->$method($parameters, $object, $action);
			$ret += (int) $r; // Dolibarr adds the answers of 'addreplace' hooks
			if (!empty($instance->results) && is_array($instance->results)) {
				$this->resArray = array_merge_recursive($this->resArray, $instance->results);
			}
		}
		return $ret;
	}
}

$db = new DoliDB(getenv('FAKE_DB'));
$u = json_decode(getenv('FAKE_USER'), true);
$user = new User();
$user->id = $u['id'];
$user->admin = $u['admin'] ?? 0;
$user->socid = $u['socid'] ?? 0;
$user->rights = $u['rights'];
$user->conf = new stdClass();
$st = $db->query('SELECT param, value FROM llx_user_param WHERE fk_user = '.((int) $user->id).' AND entity = 1');
while ($st && ($o = $db->fetch_object($st))) {
	$user->conf->{$o->param} = $o->value;
}
$langs = new Translate();
$hookmanager = new HookManager();
$conf = new Conf();
$conf->entity = 1;
$conf->liste_limit = 20;
$conf->use_javascript_ajax = 1;
// As Dolibarr's Conf for an enabled module; FAKE_MULTIDIR (JSON entity => folder) adds the folders of
// other entities, as Multicompany does.
$conf->bericht = (object) array('dir_output' => DOL_DATA_ROOT.'/bericht', 'dir_temp' => DOL_DATA_ROOT.'/bericht/temp',
	'multidir_output' => array(1 => DOL_DATA_ROOT.'/bericht') + (array) json_decode(getenv('FAKE_MULTIDIR') ?: '{}', true));
$conf->commande = (object) array('multidir_output' => array(1 => DOL_DATA_ROOT.'/commande'));
$conf->facture = (object) array('multidir_output' => array(1 => DOL_DATA_ROOT.'/facture'));
$conf->propal = (object) array('multidir_output' => array(1 => DOL_DATA_ROOT.'/propale'));
$conf->ficheinter = (object) array('dir_output' => DOL_DATA_ROOT.'/ficheinter', 'multidir_output' => array(1 => DOL_DATA_ROOT.'/ficheinter'));
$_GET = json_decode(getenv('FAKE_GET') ?: '{}', true);
$_POST = array();
// FAKE_METHOD=POST: a form posted; Dolibarr's main.inc.php refuses it without the session's token.
if (getenv('FAKE_METHOD') === 'POST') {
	$_SERVER['REQUEST_METHOD'] = 'POST';
	if (!isset($_GET['token']) || $_GET['token'] !== newToken()) {
		echo 'CSRF TOKEN REFUSED';
		exit(6);
	}
}
// The company (Dolibarr's $mysoc).
$mysoc = new stdClass();
$mysoc->country_code = 'DE';
$_SERVER['PHP_SELF'] = '/custom/bericht/'.basename($_SERVER['SCRIPT_FILENAME'] ?? 'page.php');

function GETPOSTISSET($k)
{
	return isset($_GET[$k]);
}
function GETPOST($k, $check = 'alphanohtml')
{
	if ($check === 'array') {
		return (isset($_GET[$k]) && is_array($_GET[$k])) ? $_GET[$k] : array();
	}
	if (isset($_GET[$k]) && is_array($_GET[$k])) {
		return '';
	}
	$v = isset($_GET[$k]) ? (string) $_GET[$k] : '';
	if ($check === 'aZ09' && !preg_match('/^[a-zA-Z0-9_\-\.]*$/', $v)) {
		return '';
	}
	if ($check === 'aZ09comma' && !preg_match('/^[a-zA-Z0-9_\-\.,]*$/', $v)) {
		return '';
	}
	return ($check === 'alphanohtml' || $check === 'alpha') ? trim(strip_tags($v)) : $v;
}
/** Dolibarr's price2num for the German format the stand-ins print (1.234,50): a number. */
function price2num($amount, $rounding = '', $option = 0)
{
	return is_string($amount) ? (float) str_replace(array('.', ','), array('', '.'), $amount) : (float) $amount;
}
function GETPOSTINT($k)
{
	return (int) GETPOST($k, 'int');
}
function getDolGlobalInt($k, $default = 0)
{
	return (int) getDolGlobalString($k, (string) $default);
}
function getDolGlobalString($k, $default = '')
{
	$all = json_decode(getenv('FAKE_CONST') ?: '{}', true);
	return isset($all[$k]) ? (string) $all[$k] : $default;
}

function isModEnabled($m)
{
	return true;
}
function getEntity($e)
{
	return '1';
}
function accessforbidden($m = '')
{
	echo 'ACCESSFORBIDDEN';
	exit(3);
}
function httponly_accessforbidden($m, $code = 403)
{
	echo 'FORBIDDEN '.$code.' '.$m;
	exit(4);
}
/** Dolibarr's messages shown on the next page: printed here, one line each. */
function setEventMessages($mesg, $mesgs, $style = 'mesgs')
{
	echo 'EVENT '.$style.': '.implode(' | ', array_merge($mesg === null ? array() : array($mesg), (array) $mesgs))."\n";
}
function dol_print_error($db, $e = '')
{
	echo 'DBERROR '.$e.' '.$db->lasterror();
	exit(5);
}
/**
 * Dolibarr's check of the object (security.lib.php's restrictedArea, same signature): the feature's
 * read right; with an object id, an external user's own third party, read from $tableandshare (the
 * feature's name when empty; fichinter/card.php names 'fichinter' for the feature 'ficheinter').
 */
function restrictedArea($user, $features, $object = 0, $tableandshare = '', $feature2 = '', $dbt_keyfield = 'fk_soc', $dbt_select = 'rowid', $isdraft = 0, $mode = 0)
{
	if (!$user->hasRight($features, 'lire')) {
		accessforbidden();
	}
	$id = is_object($object) ? $object->id : (int) $object;
	if ($user->socid > 0 && $id > 0) {
		$table = $tableandshare !== '' ? explode('&', $tableandshare)[0] : $features;
		$st = $GLOBALS['db']->query('SELECT fk_soc FROM llx_'.$table.' WHERE rowid = '.((int) $id));
		$o = $st ? $GLOBALS['db']->fetch_object($st) : null;
		if (!$o || (int) $o->fk_soc !== (int) $user->socid) {
			accessforbidden();
		}
	}
	return 1;
}
function llxHeader($head = '', $title = '')
{
	echo "<html><head><title>".htmlspecialchars((string) $title)."</title></head><body>\n";
}
/** Dolibarr's page of a missing record: header, the message, footer, and the end of the request. */
function recordNotFound($message = '', $printheader = 1, $printfooter = 1, $showonlymessage = 0, $params = null)
{
	global $langs;
	if ($printheader) {
		llxHeader('');
	}
	echo '<div class="error">'.$langs->trans($message === '' ? 'ErrorRecordNotFound' : $message).'</div>';
	if ($printfooter) {
		llxFooter();
	}
	echo 'HTTP '.http_response_code();
	exit(0);
}
function dol_now($mode = 'auto')
{
	return time();
}
function getUserRemoteIP($trusted = 0)
{
	return '192.0.2.1';
}
/** Dolibarr's natural_search, mode 0 (text): words (quotes keep spaces) all match, "|" either of them, "!" not, "^"/"$" anchor, "*" any. */
function natural_search($fields, $value, $mode = 0, $nofirstand = 0)
{
	global $db;
	$value = preg_replace('/\*/', '%', trim($value));
	$value = preg_replace('/\s*\|\s*/', '|', $value);
	preg_match_all('/"([^"]*)"|\'([^\']*)\'|(\S+)/', $value, $m, PREG_SET_ORDER);
	$fields = (array) $fields;
	$res = '';
	foreach ($m as $match) {
		$crit = trim(end($match));
		$newres = '';
		$i2 = 0;
		foreach ($fields as $field) {
			$i3 = 0;
			foreach (explode('|', $crit) as $tmpcrit) {
				if ($tmpcrit !== '0' && empty($tmpcrit)) {
					continue;
				}
				$not = (strpos($crit, '!') === 0);
				$newres .= ($i2 > 0 || $i3 > 0) ? ($not ? ' AND ' : ' OR ') : '';
				$crit2 = preg_replace('/^!/', '', $tmpcrit);
				$before = preg_match('/^[\^\$]/', $crit2) ? '' : '%';
				$after = preg_match('/[\^\$]$/', $crit2) ? '' : '%';
				$crit2 = preg_replace('/^[\^\$]|[\^\$]$/', '', $crit2);
				$name = preg_replace('/[^0-9_\-\.,\p{L}]/ui', '', $field);
				$like = $name.($not ? ' NOT LIKE ' : ' LIKE ')."'".$before.$db->escape($crit2).$after."'";
				$newres .= ($not || $crit2 === '') ? '('.$like.' OR '.$field.' IS NULL)' : $like;
				$i3++;
			}
			$i2++;
		}
		if ($newres) {
			$res .= ($res ? ' AND ' : '').($i2 > 1 ? '(' : '').$newres.($i2 > 1 ? ')' : '');
		}
	}
	return ($nofirstand ? '' : ' AND ').'('.$res.')';
}
function llxFooter()
{
	echo "</body></html>\n";
}
function dol_get_fiche_head($h, $active, $title)
{
	return '<div class="tabs" data-active="'.$active.'">'.$title.'</div>';
}
function dol_get_fiche_end()
{
	return '</div>';
}
function dol_banner_tab($o)
{
	echo '<div class="banner">'.htmlspecialchars($o->ref).'</div>';
}
function load_fiche_titre($t)
{
	return '<h2>'.$t.'</h2>';
}
/**
 * Dolibarr's title bar of a list with its navigation, as far as tests look at it: the count, the
 * previous arrow (page > 0), the page number as a text input and "/" and the last page (as
 * $pagenavastextinput = 1 shows them), and the next arrow when more rows came than a page holds.
 */
function print_barre_liste($title, $page, $file, $options = '', $sortfield = '', $sortorder = '', $morehtmlcenter = '', $num = -1, $totalnboflines = '', $picto = 'generic', $pictoisfullpath = 0, $morehtmlright = '', $morecss = '', $limit = -1, $selectlimitsuffix = 0, $hidenavigation = 0, $pagenavastextinput = 0, $morehtmlrightbeforearrow = '')
{
	$savlimit = $limit;
	if ($limit < 0) {
		$limit = $GLOBALS['conf']->liste_limit;
	}
	$nextpage = ($savlimit != 0 && (($num > $limit) || ($num == -1) || ($limit == 0))) ? 1 : 0;
	if ($sortfield) {
		$options .= '&sortfield='.urlencode($sortfield);
	}
	if ($sortorder) {
		$options .= '&sortorder='.urlencode($sortorder);
	}
	echo '<div class="barre" data-page="'.$page.'" data-num="'.$num.'" data-total="'.$totalnboflines.'">'.$title;
	if ($totalnboflines > 0) {
		echo '<span class="totalnboflines">('.$totalnboflines.')</span>';
	}
	echo '<div class="center">'.$morehtmlcenter.'</div><ul class="pagination">';
	if ($page > 0) {
		echo '<li class="pagination paginationpage paginationpageleft"><a class="paginationprevious" href="'.$file.'?page='.($page - 1).$options.'">&lt;</a></li>';
	}
	if ($savlimit != 0 && ($page > 0 || $num > $limit) && $totalnboflines) {
		$nbpages = $limit > 0 ? ceil($totalnboflines / $limit) : 1;
		if ($pagenavastextinput) {
			echo '<li class="pagination pageplusone"><input type="text" name="pageplusone" value="'.($page + 1).'"></li>/';
			echo '<li class="pagination paginationlastpage"><a href="'.$file.'?page='.($nbpages - 1).$options.'">'.$nbpages.'</a></li>';
		} else {
			for ($cpt = 0; $cpt < $nbpages; $cpt++) {
				echo '<li class="pagination">'.($cpt == $page ? '<span class="active">'.($cpt + 1).'</span>' : '<a href="'.$file.'?page='.$cpt.$options.'">'.($cpt + 1).'</a>').'</li>';
			}
		}
	}
	if ($nextpage > 0) {
		echo '<li class="pagination paginationpage paginationpageright"><a class="paginationnext" href="'.$file.'?page='.($page + 1).$options.'">&gt;</a></li>';
	}
	echo '</ul></div>';
}
function print_liste_field_titre($name, $file = '', $field = '', $b = '', $param = '', $m = '', $sortfield = '', $sortorder = '')
{
	echo '<th data-field="'.$field.'"'.($field !== '' && $field === $sortfield ? ' data-sort="'.$sortorder.'"' : '').'>'.$GLOBALS['langs']->trans($name).'</th>';
}
function dolGetStatus($label, $short, $html, $type, $mode)
{
	return '<span class="badge '.$type.'">'.$label.'</span>';
}
function img_picto($t, $p, $m = '')
{
	return '<img data-picto="'.$p.'">';
}
function img_pdf($t)
{
	return '<img data-picto="pdf">';
}
function dol_escape_htmltag($s)
{
	return htmlspecialchars((string) $s, ENT_QUOTES);
}
function dol_print_date($ts, $f = '', $tz = 'auto', $outputlangs = null, $encodetooutput = false)
{
	if ($ts === '') {
		return '';
	}
	return $f === 'dayhourlog' ? gmdate('YmdHis', $ts) : gmdate('d.m.Y H:i', $ts);
}
/** As Dolibarr's with $check = 1: '' for a date that does not exist (an empty day selector). */
function dol_mktime($h, $i, $s, $m, $d, $y, $gm = 'auto', $check = 1)
{
	if ($check && (!$m || !$d || !$y || !checkdate((int) $m, (int) $d, (int) $y))) {
		return '';
	}
	return gmmktime($h, $i, $s, $m, $d, $y);
}
function dol_trunc($s, $n)
{
	return mb_strlen($s) > $n ? mb_substr($s, 0, $n).'…' : $s;
}
function dol_sanitizeFileName($s)
{
	return preg_replace('/[<>\/\\\\?*|":°$;`]/', '_', $s);
}
function dol_buildpath($p, $t = 0)
{
	return '/custom'.$p;
}
function newToken()
{
	return 'token';
}
