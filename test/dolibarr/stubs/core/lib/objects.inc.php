<?php
/* Stand-in for Dolibarr's Commande, Facture, Propal: fetch by rowid from the test database. */
class FakeThirdparty
{
	public $id; public $name;
	public function getNomUrl()
	{
		return '<a class="soc">'.htmlspecialchars($this->name).'</a>';
	}
}
abstract class FakeObject
{
	public $db; public $id; public $ref; public $ref_client; public $socid; public $entity = 1; public $thirdparty;
	public function __construct($db)
	{
		$this->db = $db;
	}
	public function fetch($id)
	{
		$st = $this->db->query('SELECT rowid, ref, fk_soc FROM llx_'.static::TABLE.' WHERE rowid = '.((int) $id));
		$o = $st ? $this->db->fetch_object($st) : null;
		if (!$o) {
			return 0;
		}
		$this->id = (int) $o->rowid; $this->ref = $o->ref; $this->socid = (int) $o->fk_soc;
		return 1;
	}
	public function fetch_thirdparty()
	{
		$st = $this->db->query('SELECT rowid, nom FROM llx_societe WHERE rowid = '.((int) $this->socid));
		$o = $this->db->fetch_object($st);
		$this->thirdparty = new FakeThirdparty();
		$this->thirdparty->id = $o->rowid; $this->thirdparty->name = $o->nom;
	}
}
