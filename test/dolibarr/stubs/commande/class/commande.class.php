<?php
/* Stand-in for Dolibarr's Commande class: the order, its lines (llx_commandedet), its project. */
require_once DOL_DOCUMENT_ROOT.'/core/lib/objects.inc.php';
class Commande extends FakeObject
{
	const TABLE = 'commande';
	const CARD = '/commande/card.php?id=';
	const PICTO = 'order';
	public $element = 'commande';
	public $lines = array();
	public $fk_project = 0;
	public function fetch($id)
	{
		$r = parent::fetch($id);
		if ($r > 0) {
			$this->lines = array();
			$st = $this->db->query('SELECT rowid, fk_product, description, subprice, tva_tx, vat_src_code, remise_percent FROM llx_commandedet WHERE fk_commande = '.((int) $this->id).' ORDER BY rang, rowid');
			while ($st && ($o = $this->db->fetch_object($st))) {
				$o->desc = $o->description;
				$this->lines[] = $o;
			}
		}
		return $r;
	}
	public function getNomUrl($withpicto = 0, $option = '', $max = 0, $short = 0, $notooltip = 0, $save_lastsearch_value = -1, $addlinktonotes = 0, $target = '')
	{
		return $this->nomUrl($withpicto);
	}
}
