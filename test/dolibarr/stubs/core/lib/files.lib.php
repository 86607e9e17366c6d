<?php
/* Stand-in: dol_is_file of Dolibarr's files.lib.php. */
function dol_is_file($p)
{
	return is_file($p);
}
