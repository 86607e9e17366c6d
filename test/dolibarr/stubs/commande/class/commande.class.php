<?php
/* Stand-in for Dolibarr's Commande class. */
require_once DOL_DOCUMENT_ROOT.'/core/lib/objects.inc.php';
class Commande extends FakeObject
{
	const TABLE = 'commande';
}
