<?php
/* Stand-in for Dolibarr's main.inc.php, for the module's pages in tests (not Dolibarr's code).
 * Environment: FAKE_DB (SQLite file), FAKE_USER (JSON: id, admin, socid, rights "module.perm[.sub]"),
 * FAKE_GET (JSON request parameters), FAKE_DOCS (documents folder), FAKE_QUERY_LOG (file: every query).
 * Exit codes: 3 accessforbidden, 4 httponly_accessforbidden, 5 dol_print_error.
 */
error_reporting(E_ALL);
date_default_timezone_set('UTC');
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
	public function __construct($file)
	{
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
		$st = $this->pdo->query($sql);
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
	public function close()
	{
	}
}

class User
{
	public $id; public $admin; public $socid; public $rights = array();
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
$langs = new Translate();
$hookmanager = new HookManager();
$conf = new stdClass();
$conf->entity = 1;
$conf->liste_limit = 20;
// As Dolibarr's Conf for an enabled module; FAKE_MULTIDIR (JSON entity => folder) adds the folders of
// other entities, as Multicompany does.
$conf->bericht = (object) array('dir_output' => DOL_DATA_ROOT.'/bericht', 'dir_temp' => DOL_DATA_ROOT.'/bericht/temp',
	'multidir_output' => array(1 => DOL_DATA_ROOT.'/bericht') + (array) json_decode(getenv('FAKE_MULTIDIR') ?: '{}', true));
$conf->commande = (object) array('multidir_output' => array(1 => DOL_DATA_ROOT.'/commande'));
$conf->facture = (object) array('multidir_output' => array(1 => DOL_DATA_ROOT.'/facture'));
$conf->propal = (object) array('multidir_output' => array(1 => DOL_DATA_ROOT.'/propale'));
$_GET = json_decode(getenv('FAKE_GET') ?: '{}', true);
$_POST = array();
$_SERVER['PHP_SELF'] = '/custom/bericht/'.basename($_SERVER['SCRIPT_FILENAME'] ?? 'page.php');

function GETPOSTISSET($k)
{
	return isset($_GET[$k]);
}
function GETPOST($k, $check = 'alphanohtml')
{
	$v = isset($_GET[$k]) ? (string) $_GET[$k] : '';
	if ($check === 'aZ09' && !preg_match('/^[a-zA-Z0-9_\-\.]*$/', $v)) {
		return '';
	}
	if ($check === 'aZ09comma' && !preg_match('/^[a-zA-Z0-9_\-\.,]*$/', $v)) {
		return '';
	}
	return ($check === 'alphanohtml' || $check === 'alpha') ? trim(strip_tags($v)) : $v;
}
function GETPOSTINT($k)
{
	return (int) GETPOST($k, 'int');
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
	echo 'EVENT '.$style.': '.$mesg."\n";
}
function dol_print_error($db, $e = '')
{
	echo 'DBERROR '.$e.' '.$db->lasterror();
	exit(5);
}
/** Dolibarr's check of the object: the feature's read right, an external user's own third party. */
function restrictedArea($user, $feature, $id)
{
	if (!$user->hasRight($feature, 'lire')) {
		accessforbidden();
	}
	if ($user->socid > 0) {
		$st = $GLOBALS['db']->query('SELECT fk_soc FROM llx_'.$feature.' WHERE rowid = '.((int) $id));
		$o = $st ? $GLOBALS['db']->fetch_object($st) : null;
		if (!$o || (int) $o->fk_soc !== (int) $user->socid) {
			accessforbidden();
		}
	}
	return 1;
}
function llxHeader()
{
	echo "<html><body>\n";
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
function print_barre_liste($title, $page, $file, $param, $sf, $so, $c, $num, $total)
{
	echo '<div class="barre" data-page="'.$page.'" data-num="'.$num.'" data-total="'.$total.'">'.$title.'</div>';
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
function dol_print_date($ts, $f, $tz = '')
{
	return $ts === '' ? '' : gmdate('d.m.Y H:i', $ts);
}
function dol_mktime($h, $i, $s, $m, $d, $y, $gm = '')
{
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
