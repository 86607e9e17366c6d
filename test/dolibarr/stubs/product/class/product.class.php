<?php
/* Stand-in for Dolibarr's Product class: fetch by rowid or ref, the price Dolibarr picks (the
 * product's, formatted as Dolibarr formats a customer's own price), the duration in hours. */
#[\AllowDynamicProperties]
class Product
{
	const TYPE_PRODUCT = 0;
	const TYPE_SERVICE = 1;
	public $db; public $id; public $ref; public $label; public $type; public $price; public $tva_tx; public $fk_unit; public $duration_value; public $duration_unit;
	public function __construct($db)
	{
		$this->db = $db;
	}
	public function fetch($id = 0, $ref = '')
	{
		$where = $id > 0 ? 'rowid = '.((int) $id) : "ref = '".$this->db->escape($ref)."'";
		$st = $this->db->query('SELECT rowid, ref, label, fk_product_type, price, tva_tx, fk_unit, duration FROM llx_product WHERE '.$where);
		$o = $st ? $this->db->fetch_object($st) : null;
		if (!$o) {
			return 0;
		}
		$this->id = (int) $o->rowid; $this->ref = $o->ref; $this->label = $o->label; $this->type = (int) $o->fk_product_type;
		$this->price = (float) $o->price; $this->tva_tx = (float) $o->tva_tx; $this->fk_unit = $o->fk_unit;
		$this->duration_value = $o->duration ? (float) $o->duration : 0;
		$this->duration_unit = $o->duration ? substr($o->duration, -1) : '';
		return 1;
	}
	/** As Dolibarr's gives a customer's own price: formatted for the screen (price(), German here: 1.289,50). */
	public function getSellPrice($seller, $buyer, $pqp = 0)
	{
		return array('pu_ht' => number_format($this->price, 2, ',', '.'), 'pu_ttc' => $this->price * (1 + $this->tva_tx / 100), 'price_min' => 0, 'price_base_type' => 'HT', 'tva_tx' => $this->tva_tx, 'tva_npr' => 0);
	}
	public function getProductDurationHours()
	{
		if (empty($this->duration_value)) {
			return -1;
		}
		return $this->duration_value * ($this->duration_unit === 'h' ? 1 : ($this->duration_unit === 'i' ? 1 / 60 : 24));
	}
}
