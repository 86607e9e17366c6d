<?php
/* Stand-in for Dolibarr 22's document.php as far as it decides what to deliver (not Dolibarr's
 * code; viewimage.php asks the same check with the same mode 'read' and is not played separately):
 * the parameter file cleaned as GETPOST 'alphanohtml'
 * cleans it, '../' removed, dol_check_secure_access_document, the third party of an external
 * user compared with every row of sqlprotectagainstexternals, the refusal of '..' and pipes in the
 * full path, a missing file. The module's hooks are registered as Dolibarr registers them for an
 * enabled module. Output: the file's bytes, or ACCESSFORBIDDEN (exit 3), FORBIDDEN 403 … (exit 4),
 * ErrorFileNameInvalid / ErrorFileDoesNotExists (exit 0, nothing of the file).
 * With FAKE_API (JSON: method, mode) it plays the REST API's documents instead (context api, the
 * request's method): mode 'read' with DELETE unlinks the file when allowed (DELETED), mode 'write'
 * (POST upload) writes FAKE_API_CONTENT to the checked path whatever the answer (WRITTEN).
 */
require __DIR__.'/main.inc.php';
require_once DOL_DOCUMENT_ROOT.'/core/lib/files.lib.php';
require_once DOL_DOCUMENT_ROOT.'/custom/bericht/class/actions_bericht.class.php';
$hookmanager->hooks[] = new ActionsBericht($db);

/** GETPOST's 'alphanohtml': entities decoded, tags removed, \x \u \digit made /, '../' '..\' and a few entity spellings removed, until nothing changes. */
function fake_alphanohtml($v)
{
	$v = trim((string) $v);
	do {
		$old = $v;
		$v = html_entity_decode($v, ENT_COMPAT | ENT_HTML5, 'UTF-8');
		$v = preg_replace('/<[^<>]+>/', '', $v);
		$v = preg_replace('/\\\\([0-9xu])/', '/\1', $v);
		$v = str_ireplace(array('../', '..\\', '&#38', '&#0000038', '&#x26', '&quot', '"', '&#34', '&#0000034', '&#x22', '&#47', '&#0000047', '&#x2F', '&#92', '&#0000092', '&#x5C'), '', $v);
	} while ($old !== $v);
	return $v;
}

$original_file = fake_alphanohtml($_GET['file'] ?? '');
$modulepart = fake_alphanohtml($_GET['modulepart'] ?? '');
$entity = isset($_GET['entity']) ? (int) $_GET['entity'] : $conf->entity;
if ($original_file === '') {
	httponly_accessforbidden('Bad link', 400);
}
$original_file = preg_replace('/\.\.+/', '..', $original_file);
$original_file = str_replace(array('../', '..\\'), '/', $original_file);

$api = json_decode(getenv('FAKE_API') ?: 'null', true);
if ($api) {
	$hookmanager->initHooks(array('api'));
	$_SERVER['REQUEST_METHOD'] = $api['method'];
	$check = dol_check_secure_access_document($modulepart, $original_file, $entity, $user, '', $api['mode']);
	if ($api['mode'] === 'write') {
		// api_documents.class.php's upload: the checked path is the folder, accessallowed is not read.
		@mkdir($check['original_file'], 0777, true);
		file_put_contents($check['original_file'].'/'.$api['name'], getenv('FAKE_API_CONTENT'));
		echo 'WRITTEN';
		exit(0);
	}
	if (preg_match('/\.\./', $check['original_file']) || !$check['accessallowed']) {
		echo 'API 403';
		exit(0);
	}
	if ($api['method'] === 'DELETE' && @unlink($check['original_file'])) {
		echo 'DELETED';
		exit(0);
	}
	readfile($check['original_file']);
	exit(0);
}
$check = dol_check_secure_access_document($modulepart, $original_file, $entity, $user, '');
$accessallowed = $check['accessallowed'];
$full = $check['original_file'];
if ($user->socid > 0 && $check['sqlprotectagainstexternals']) {
	$st = $db->query($check['sqlprotectagainstexternals']);
	if ($st) {
		while ($row = $db->fetch_object($st)) {
			if ((int) $user->socid !== (int) $row->fk_soc) {
				$accessallowed = 0;
				break;
			}
		}
	}
}
if (!$accessallowed) {
	accessforbidden();
}
if (preg_match('/\.\./', $full) || preg_match('/[<>|]/', $full)) {
	echo 'ErrorFileNameInvalid';
	exit(0);
}
if (!file_exists($full)) {
	echo 'ErrorFileDoesNotExists';
	exit(0);
}
readfile($full);
