<?php
/* Stand-in for Dolibarr's Commande, Facture, Propal, Fichinter: fetch by rowid from the test database. */
class FakeThirdparty
{
	public $id; public $name; public $cond_reglement_id = 0; public $mode_reglement_id = 0;
	public function getNomUrl()
	{
		return '<a class="soc">'.htmlspecialchars($this->name).'</a>';
	}
}
#[\AllowDynamicProperties]
abstract class FakeObject
{
	public $db; public $id; public $ref; public $ref_client; public $socid; public $entity = 1; public $thirdparty; public $statut; public $status;
	public $errors = array();
	public function __construct($db)
	{
		$this->db = $db;
	}
	public function fetch($id)
	{
		$st = $this->db->query('SELECT rowid, ref, ref_client, fk_soc, entity, fk_statut FROM llx_'.static::TABLE.' WHERE rowid = '.((int) $id));
		$o = $st ? $this->db->fetch_object($st) : null;
		if (!$o) {
			return 0;
		}
		$this->id = (int) $o->rowid; $this->ref = $o->ref; $this->ref_client = $o->ref_client; $this->socid = (int) $o->fk_soc;
		$this->entity = (int) $o->entity; $this->statut = $this->status = (int) $o->fk_statut;
		return 1;
	}
	public function fetch_thirdparty()
	{
		$st = $this->db->query('SELECT rowid, nom FROM llx_societe WHERE rowid = '.((int) $this->socid));
		$o = $this->db->fetch_object($st);
		$this->thirdparty = new FakeThirdparty();
		$this->thirdparty->id = $o->rowid; $this->thirdparty->name = $o->nom;
	}
	/** The link Dolibarr's getNomUrl makes: the card, with the class's picto. */
	protected function nomUrl($withpicto)
	{
		return '<a class="nomurl" href="'.static::CARD.((int) $this->id).'">'.($withpicto ? '<img data-picto="'.static::PICTO.'">' : '').htmlspecialchars((string) $this->ref).'</a>';
	}
}
