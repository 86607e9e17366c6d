<?php
/* Stand-in for Dolibarr's Propal class. */
require_once DOL_DOCUMENT_ROOT.'/core/lib/objects.inc.php';
class Propal extends FakeObject
{
	const TABLE = 'propal';
	const CARD = '/comm/propal/card.php?id=';
	const PICTO = 'propal';
	public $element = 'propal';
	public function getNomUrl($withpicto = 0, $option = '', $get_params = '', $notooltip = 0, $save_lastsearch_value = -1, $addlinktonotes = -1)
	{
		return $this->nomUrl($withpicto);
	}
}
