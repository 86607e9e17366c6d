<?php
/* Stand-in for Dolibarr's DolibarrTriggers base class (core/triggers/dolibarrtriggers.class.php). */
abstract class DolibarrTriggers
{
	protected $db;
	public $name; public $description; public $version; public $picto; public $family;
	public $error = '';
	public $errors = array();
	public function __construct(DoliDB $db)
	{
		$this->db = $db;
	}
	abstract public function runTrigger($action, $object, User $user, Translate $langs, Conf $conf);
}
