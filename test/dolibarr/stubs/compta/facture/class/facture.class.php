<?php
/* Stand-in for Dolibarr's Facture class. */
require_once DOL_DOCUMENT_ROOT.'/core/lib/objects.inc.php';
class Facture extends FakeObject
{
	const TABLE = 'facture';
	const CARD = '/compta/facture/card.php?id=';
	const PICTO = 'bill';
	public $element = 'facture';
	public function getNomUrl($withpicto = 0, $option = '', $max = 0, $short = 0, $moretitle = '', $notooltip = 0, $addlinktonotes = 0, $save_lastsearch_value = -1, $target = '')
	{
		return $this->nomUrl($withpicto);
	}
}
