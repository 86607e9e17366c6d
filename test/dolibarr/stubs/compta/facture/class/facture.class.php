<?php
/* Stand-in for Dolibarr's Facture class: fetch, and create, add_object_linked and addline writing
 * what the tests look at (llx_facture, llx_element_element, llx_facturedet with the arguments). */
require_once DOL_DOCUMENT_ROOT.'/core/lib/objects.inc.php';
class Facture extends FakeObject
{
	const TABLE = 'facture';
	const CARD = '/compta/facture/card.php?id=';
	const PICTO = 'bill';
	const TYPE_STANDARD = 0;
	public $element = 'facture';
	public $type; public $date; public $cond_reglement_id; public $mode_reglement_id; public $model_pdf; public $fk_project; public $ref_ext;
	public $linked_objects = array();
	public $error = '';
	public function create($user)
	{
		// As Dolibarr's: its own transaction, inside the caller's.
		$this->db->begin();
		if (getenv('FAKE_FAIL') === 'facture_create') {
			$this->error = 'ErrorFakeCreate';
			$this->db->rollback();
			return -1;
		}
		$this->db->query("INSERT INTO llx_facture (ref, fk_soc, entity, ref_client, fk_statut, ref_ext, type, fk_cond_reglement, fk_mode_reglement, model_pdf, fk_user_author)"
			." VALUES ('(PROV)', ".((int) $this->socid).", 1, ".($this->ref_client === null ? 'NULL' : "'".$this->db->escape($this->ref_client)."'").", 0, '".$this->db->escape($this->ref_ext)."', "
			.((int) $this->type).", ".((int) $this->cond_reglement_id).", ".((int) $this->mode_reglement_id).", '".$this->db->escape((string) $this->model_pdf)."', ".((int) $user->id).")");
		$this->id = (int) $this->db->last_insert_id('llx_facture');
		$this->db->query("UPDATE llx_facture SET ref = '(PROV".$this->id.")' WHERE rowid = ".$this->id);
		foreach ($this->linked_objects as $type => $id) {
			$this->add_object_linked($type, $id);
		}
		$this->db->commit();
		return $this->id;
	}
	public function add_object_linked($type, $id)
	{
		$this->db->query("INSERT INTO llx_element_element (fk_source, sourcetype, fk_target, targettype) VALUES (".((int) $id).", '".$this->db->escape($type)."', ".((int) $this->id).", 'facture')");
		return 1;
	}
	public function addline($desc, $pu_ht, $qty, $txtva, $txlocaltax1 = 0, $txlocaltax2 = 0, $fk_product = 0, $remise_percent = 0, $date_start = '', $date_end = '', $fk_code_ventilation = 0, $info_bits = 0, $fk_remise_except = 0, $price_base_type = 'HT', $pu_ttc = 0, $type = 0, $rang = -1, $special_code = 0, $origin = '', $origin_id = 0, $fk_parent_line = 0, $fk_fournprice = null, $pa_ht = 0, $label = '', $array_options = array(), $situation_percent = 100, $fk_prev_id = 0, $fk_unit = null)
	{
		$this->db->begin();
		// A line written, then Dolibarr refusing (as its update of the invoice's totals may): rolled back here, inside the caller's transaction.
		$this->db->query("INSERT INTO llx_facturedet (fk_facture, description) VALUES (".((int) $this->id).", 'partial')");
		if (getenv('FAKE_FAIL') === 'facture_addline') {
			$this->error = 'ErrorFakeAddline';
			$this->db->rollback();
			return -1;
		}
		$this->db->query("DELETE FROM llx_facturedet WHERE fk_facture = ".((int) $this->id)." AND description = 'partial'");
		$this->db->query("INSERT INTO llx_facturedet (fk_facture, description, subprice, qty, tva_tx, fk_product, remise_percent, product_type, fk_unit) VALUES ("
			.((int) $this->id).", '".$this->db->escape($desc)."', ".((float) $pu_ht).", ".((float) $qty).", ".((float) $txtva).", ".($fk_product ? (int) $fk_product : 'NULL').", "
			.((float) $remise_percent).", ".((int) $type).", ".($fk_unit === null ? 'NULL' : (int) $fk_unit).")");
		$id = (int) $this->db->last_insert_id('llx_facturedet');
		$this->db->commit();
		return $id;
	}
	public function getLibStatut($mode = 0)
	{
		return '<span class="badge status'.((int) $this->statut).'">'.($this->statut ? 'Validated' : 'Draft').'</span>';
	}
	public function getNomUrl($withpicto = 0, $option = '', $max = 0, $short = 0, $moretitle = '', $notooltip = 0, $addlinktonotes = 0, $save_lastsearch_value = -1, $target = '')
	{
		return $this->nomUrl($withpicto);
	}
}
