<?php
/* Stand-in: dol_is_file and the generic case of dol_check_secure_access_document of Dolibarr's
 * files.lib.php, as Dolibarr 22 decides for a module without a case of its own (not Dolibarr's code). */
function dol_is_file($p)
{
	return is_file($p);
}

/**
 * Dolibarr's generic case: a modulepart "mod-sub" becomes "mod" with "sub/" before the file; the
 * module's read right (or admin) allows; mod_temp, mod_user, mod_user_temp and massfilesarea_mod
 * lead to the module's temp and per-user folders; then the hook checkSecureAccess may hand back
 * original_file, accessallowed and sqlprotectagainstexternals, each taken only when not empty.
 */
function dol_check_secure_access_document($modulepart, $original_file, $entity, $fuser = null, $refname = '', $mode = 'read')
{
	global $conf, $hookmanager, $object;
	if (empty($entity)) {
		$entity = 1;
	}
	$accessallowed = 0;
	$sqlprotectagainstexternals = '';
	if ($fuser->admin) {
		$accessallowed = 1;
	}
	$parts = explode('-', $modulepart);
	if (!empty($parts[1])) {
		$modulepart = $parts[0];
		$original_file = $parts[1].'/'.$original_file;
	}
	$reg = array();
	$right = function ($module) use ($fuser) {
		return $fuser->hasRight($module, 'lire') || $fuser->hasRight($module, 'read');
	};
	if (preg_match('/^([a-z]+)_user_temp$/i', $modulepart, $reg) || preg_match('/^([a-z]+)_temp$/i', $modulepart, $reg)) {
		$m = $reg[1];
		if (empty($conf->$m->dir_temp)) {
			dol_print_error(null, 'not supported modulepart');
		}
		$accessallowed = $right($m) ? 1 : $accessallowed;
		$original_file = $conf->$m->dir_temp.'/'.(strpos($modulepart, '_user_') ? $fuser->id.'/' : '').$original_file;
	} elseif (preg_match('/^([a-z]+)_user$/i', $modulepart, $reg)) {
		$m = $reg[1];
		if (empty($conf->$m->dir_output)) {
			dol_print_error(null, 'not supported modulepart');
		}
		$accessallowed = $right($m) ? 1 : $accessallowed;
		$original_file = $conf->$m->dir_output.'/'.$fuser->id.'/'.$original_file;
	} elseif (preg_match('/^massfilesarea_([a-z]+)$/i', $modulepart, $reg)) {
		$m = $reg[1];
		if (empty($conf->$m->dir_output)) {
			dol_print_error(null, 'not supported modulepart');
		}
		$accessallowed = $right($m) ? 1 : $accessallowed;
		$original_file = $conf->$m->dir_output.'/temp/massgeneration/'.$fuser->id.'/'.$original_file;
	} else {
		if (empty($conf->$modulepart->dir_output)) {
			dol_print_error(null, 'not supported modulepart');
		}
		$accessallowed = $right($modulepart) ? 1 : $accessallowed;
		if (!empty($conf->$modulepart->multidir_output[$entity])) {
			$original_file = $conf->$modulepart->multidir_output[$entity].'/'.$original_file;
		} else {
			$original_file = $conf->$modulepart->dir_output.'/'.$original_file;
		}
	}
	$parameters = array('modulepart' => $modulepart, 'original_file' => $original_file, 'entity' => $entity, 'fuser' => $fuser, 'refname' => '', 'mode' => $mode);
	$reshook = $hookmanager->executeHooks('checkSecureAccess', $parameters, $object);
	if ($reshook > 0) {
		if (!empty($hookmanager->resArray['original_file'])) {
			$original_file = $hookmanager->resArray['original_file'];
		}
		if (!empty($hookmanager->resArray['accessallowed'])) {
			$accessallowed = $hookmanager->resArray['accessallowed'];
		}
		if (!empty($hookmanager->resArray['sqlprotectagainstexternals'])) {
			$sqlprotectagainstexternals = $hookmanager->resArray['sqlprotectagainstexternals'];
		}
	}
	return array('accessallowed' => ($accessallowed ? 1 : 0), 'sqlprotectagainstexternals' => $sqlprotectagainstexternals, 'original_file' => $original_file);
}

/** Dolibarr's dol_delete_dir_recursive: the folder and everything below it (no index rows here). */
function dol_delete_dir_recursive($dir, $count = 0, $nophperrors = 0, $onlysub = 0, &$countdeleted = 0, $indexdatabase = 1, $nolog = 0, $level = 0)
{
	if (!is_dir($dir)) {
		return $count;
	}
	foreach (scandir($dir) as $name) {
		if ($name === '.' || $name === '..') {
			continue;
		}
		$path = $dir.'/'.$name;
		if (is_dir($path) && !is_link($path)) {
			$count = dol_delete_dir_recursive($path, $count, $nophperrors, 0, $countdeleted, $indexdatabase, $nolog, $level + 1);
		} elseif (unlink($path)) {
			$count++;
			$countdeleted++;
		}
	}
	if (!$onlysub && rmdir($dir)) {
		$count++;
	}
	return $count;
}
