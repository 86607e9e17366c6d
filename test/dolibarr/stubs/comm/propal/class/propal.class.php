<?php
/* Stand-in for Dolibarr's Propal class. */
require_once DOL_DOCUMENT_ROOT.'/core/lib/objects.inc.php';
class Propal extends FakeObject
{
	const TABLE = 'propal';
}
