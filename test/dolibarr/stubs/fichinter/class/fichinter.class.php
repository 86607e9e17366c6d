<?php
/* Stand-in for Dolibarr's Fichinter class (interventions). */
require_once DOL_DOCUMENT_ROOT.'/core/lib/objects.inc.php';
class Fichinter extends FakeObject
{
	const TABLE = 'fichinter';
	const CARD = '/fichinter/card.php?id=';
	const PICTO = 'intervention';
	public $element = 'fichinter';
	public function getNomUrl($withpicto = 0, $option = '', $notooltip = 0, $save_lastsearch_value = -1, $morecss = '')
	{
		return $this->nomUrl($withpicto);
	}
}
