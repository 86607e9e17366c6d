<?php
/* Stand-in for Dolibarr's Commande class. */
require_once DOL_DOCUMENT_ROOT.'/core/lib/objects.inc.php';
class Commande extends FakeObject
{
	const TABLE = 'commande';
	const CARD = '/commande/card.php?id=';
	const PICTO = 'order';
	public $element = 'commande';
	public function getNomUrl($withpicto = 0, $option = '', $max = 0, $short = 0, $notooltip = 0, $save_lastsearch_value = -1, $addlinktonotes = 0, $target = '')
	{
		return $this->nomUrl($withpicto);
	}
}
