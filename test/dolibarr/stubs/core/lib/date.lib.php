<?php
/* Stand-in for Dolibarr's date.lib.php: what the module calls. */
/** A duration below a day as Dolibarr's convertSecondToTime(..., 'all') prints it: 02:15. */
function convertSecondToTime($seconds, $format = 'all', $lengthOfDay = 86400)
{
	return sprintf('%02d:%02d', intdiv((int) $seconds, 3600), intdiv((int) $seconds % 3600, 60));
}
function dol_get_first_hour($date)
{
	return $date - ($date % 86400);
}
