<?php
/* Stand-in for Dolibarr's Societe: what the list shows of a third party. */
class Societe
{
	public $db; public $id; public $name; public $client; public $status;
	public function __construct($db)
	{
		$this->db = $db;
	}
	public function getNomUrl($withpicto = 0, $option = '', $maxlen = 0, $notooltip = 0, $save_lastsearch_value = -1, $noaliasinname = 0, $target = '', $morecss = '')
	{
		return '<a class="soc" href="/societe/card.php?socid='.((int) $this->id).'">'.($withpicto ? '<img data-picto="company">' : '').htmlspecialchars((string) $this->name).'</a>';
	}
}
