<?php
/* Stand-in for Dolibarr's Facture class. */
require_once DOL_DOCUMENT_ROOT.'/core/lib/objects.inc.php';
class Facture extends FakeObject
{
	const TABLE = 'facture';
}
