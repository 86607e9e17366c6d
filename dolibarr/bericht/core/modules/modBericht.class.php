<?php
/* fieldreport: the Dolibarr side of the service, as a module descriptor.
 *
 * Copy the folder `bericht` into Dolibarr's `htdocs/custom/` and activate the module
 * "Berichte (fieldreport)" (langs/de_DE/bericht.lang) under Home > Setup > Modules. Activating it registers the module's
 * rights in llx_rights_def as Dolibarr registers every module's, so they can be granted on the
 * user and group cards (Permissions). The module's tables and files are the fieldreport
 * service's: it creates its tables itself (`fieldreport migrate`), so this module creates none.
 *
 * Its number and rights must be exactly the service's (src/dolibarr/rights.ts); a test compares
 * them.
 *
 * This program is free software: GNU General Public License, version 3 or later.
 */

include_once DOL_DOCUMENT_ROOT.'/core/modules/DolibarrModules.class.php';
require_once __DIR__.'/../../class/berichtreports.class.php';

/**
 * Descriptor of the module Bericht (field-service reports made with fieldreport).
 */
class modBericht extends DolibarrModules
{
	/**
	 * @param DoliDB $db Database handler
	 */
	public function __construct($db)
	{
		$this->db = $db;

		// The service's MODULE_NUMBER: rights ids are this number and a two-digit counter.
		$this->numero = 436100;
		// rights_def.module of every right below
		$this->rights_class = 'bericht';

		$this->family = 'crm';
		$this->module_position = '90';
		$this->name = preg_replace('/^mod/i', '', get_class($this));
		$this->description = 'Berichte vom Einsatzort: Fotos, Seiten, Unterschrift und PDF mit fieldreport';
		$this->descriptionlong = 'Rechte für den fieldreport-Dienst, der Berichte zu Aufträgen, Rechnungen, Angeboten und Serviceaufträgen erstellt.';
		$this->editor_name = 'fieldreport';
		$this->version = '0.1.0';
		$this->const_name = 'MAIN_MODULE_'.strtoupper($this->name);
		$this->picto = 'technic';

		// Hooks (class/actions_bericht.class.php): checkSecureAccess, so document.php, viewimage.php
		// and the REST API ('api') serve a file below bericht/ only to users who may read its report
		// (external users: their own third party's) and never a work file; getFormMail, so Dolibarr's
		// "send by e-mail" form of an order, invoice or proposal attaches its newest final report;
		// deleteFile ('fileslib'), so a document tab's trash icon does not delete a photo a signed
		// report shows, and says which report.
		// Triggers (core/triggers/interface_99_modBericht_BerichtTriggers.class.php): a mail sent with
		// Dolibarr's form that carried report PDFs is recorded as sent; deleting an order, invoice,
		// proposal or intervention deletes its draft reports and is refused while it has final ones.
		$this->module_parts = array('hooks' => array('data' => array('main', 'document', 'formmail', 'api', 'fileslib'), 'entity' => '0'), 'triggers' => 1);
		// The reports' work area in the documents folder, as the service writes it. Dolibarr sets
		// $conf->bericht->dir_output to <documents>/bericht for an enabled module: document.php's
		// generic case then serves modulepart=bericht to users with the right bericht read.
		$this->dirs = array('/bericht/temp');
		$this->config_page_url = array();

		$this->hidden = false;
		$this->depends = array('modCommande');
		$this->requiredby = array();
		$this->conflictwith = array();
		// Module and right names in the user's language: langs/<lang>/bericht.lang
		$this->langfiles = array('bericht@bericht');
		$this->phpmin = array(7, 1);
		// llx_rights_def has module_origin and enabled from Dolibarr 19 on.
		$this->need_dolibarr_version = array(19, 0);

		$this->const = array();
		// The "Berichte" tab on orders, invoices, proposals and interventions, with the number of the
		// object's reports as its badge (Dolibarr's "Label,Class,File,Method" form of a tab's title).
		$this->tabs = array();
		foreach (array('order' => 'Commande', 'invoice' => 'Facture', 'propal' => 'Propal', 'intervention' => 'Fichinter') as $objecttype => $class) {
			$element = strtolower($class);
			$this->tabs[] = array('data' => $objecttype.':+bericht:BerichtTab,BerichtReports,/bericht/class/berichtreports.class.php,count'.$class.':bericht@bericht:$user->hasRight("bericht","read"):/bericht/tab.php?element='.$element.'&id=__ID__');
		}
		$this->dictionaries = array();
		$this->boxes = array();
		$this->cronjobs = array();
		// "Einsatzberichte" in the left menu of the commercial area (where orders and proposals are),
		// with the module's picto; not "Berichte", the agenda's entry of that name.
		$this->menu = array();
		$this->menu[] = array(
			'fk_menu' => 'fk_mainmenu=commercial',
			'type' => 'left',
			'titre' => 'BerichtMenu',
			'prefix' => function_exists('img_picto') ? img_picto('', $this->picto, 'class="paddingright pictofixedwidth"') : '',
			'mainmenu' => 'commercial',
			'leftmenu' => 'bericht',
			'url' => '/bericht/list.php',
			'langs' => 'bericht@bericht',
			'position' => 1000 + 436,
			'enabled' => 'isModEnabled("bericht")',
			'perms' => '$user->hasRight("bericht","read")',
			'target' => '',
			'user' => 2,
		);

		$this->exportProfile();

		// The rights, as the service registers them: [0] id, [1] label, [2] type, [3] by default, [4] perms, [5] subperms.
		$this->rights = array();
		$rights = array(
			array('read', 'Berichte lesen', 'r'),
			array('write', 'Berichte erstellen und ändern', 'w'),
			array('delete', 'Berichte löschen', 'd'),
			array('admin', 'Berichte verwalten (Vorlagen, finale Berichte löschen)', 'a'),
		);
		foreach ($rights as $r => $right) {
			$this->rights[$r][0] = (int) ($this->numero.sprintf('%02d', $r + 1));
			$this->rights[$r][1] = $right[1];
			$this->rights[$r][2] = $right[2];
			$this->rights[$r][3] = 0;
			$this->rights[$r][4] = $right[0];
			$this->rights[$r][5] = '';
		}
	}

	/**
	 * Dolibarr's export (Tools > Export, module Exports): the reports with their object and
	 * customer, for users with the module's read right, limited as the list limits them (object
	 * rights, an external user's own third party and final reports, sales representatives). The
	 * query is made for the user who opens the export, as Dolibarr's own modules make theirs.
	 *
	 * @return void
	 */
	private function exportProfile()
	{
		global $conf, $user;
		$r = 1;
		$this->export_code[$r] = $this->rights_class.'_'.$r;
		$this->export_label[$r] = 'BerichtExport';
		$this->export_icon[$r] = $this->picto;
		$this->export_permission[$r] = array(array('bericht', 'read'));
		$this->export_fields_array[$r] = array(
			'b.rowid' => 'TechnicalID', 'b.ref' => 'BerichtRef', 'b.title' => 'BerichtTitle', 'b.version' => 'Version', 'b.status' => 'Status',
			'b.element_type' => 'BerichtObjectType', BerichtReports::PARENT_REF.' as parent_ref' => 'BerichtObject',
			BerichtReports::PARENT_REF_CLIENT.' as parent_ref_client' => 'RefCustomer',
			's.rowid' => 'IdCompany', 's.nom' => 'CompanyName', 'u.login' => 'BerichtAuthor', 'b.datec' => 'DateCreation', 'b.tms' => 'DateModificationShort',
			'b.final_pdf_path' => 'BerichtPdf',
		);
		$this->export_TypeFields_array[$r] = array(
			'b.rowid' => 'Numeric', 'b.ref' => 'Text', 'b.title' => 'Text', 'b.version' => 'Numeric', 'b.status' => 'Numeric', 'b.element_type' => 'Text',
			's.rowid' => 'Numeric', 's.nom' => 'Text', 'u.login' => 'Text', 'b.datec' => 'Date', 'b.tms' => 'Date', 'b.final_pdf_path' => 'Text',
		);
		$this->export_entities_array[$r] = array('s.rowid' => 'company', 's.nom' => 'company', 'u.login' => 'user');
		foreach (array_keys($this->export_fields_array[$r]) as $key) {
			if (!isset($this->export_entities_array[$r][$key])) {
				$this->export_entities_array[$r][$key] = 'technic';
			}
		}
		$this->export_sql_start[$r] = 'SELECT DISTINCT ';
		// Without a user (the module being switched on) the query finds nothing.
		if (is_object($user) && !empty($user->id) && is_object($this->db) && function_exists('getEntity')) {
			$reports = new BerichtReports($this->db, isset($conf->entity) ? $conf->entity : 1);
			$this->export_sql_end[$r] = $reports->fromWhere($user);
		} else {
			$this->export_sql_end[$r] = ' FROM '.(defined('MAIN_DB_PREFIX') ? MAIN_DB_PREFIX : 'llx_').'bericht as b WHERE 1 = 0';
		}
		$this->export_sql_order[$r] = ' ORDER BY b.rowid';
	}

	/**
	 * Called when the module is activated: registers its rights (and constants, directories).
	 *
	 * @param string $options Options when enabling module ('', 'noboxes')
	 * @return int 1 if OK, <=0 if KO
	 */
	public function init($options = '')
	{
		global $langs;
		// Dolibarr's SOAP webservices (webservices/server_other.php, getDocument) serve files without
		// asking any module's hook: with them on, the module's access check does not hold there.
		if (function_exists('isModEnabled') && isModEnabled('webservices') && function_exists('setEventMessages') && is_object($langs)) {
			$langs->loadLangs(array('bericht@bericht'));
			setEventMessages($langs->trans('BerichtWebservicesWarning'), null, 'warnings');
		}
		// The contact type that gives a technician an order (the service's ASSIGNED_CONTACT_TYPES
		// counts it by default): offered on the order's "Contacts/addresses" tab beside Dolibarr's
		// own. Added once, the way Dolibarr's modules add theirs (next free rowid); kept when the
		// module is deactivated, as are the contacts that use it.
		if (is_object($this->db) && $this->addContactType('commande', 'internal', 'TECHNICIAN', 'Techniker') < 0) {
			return -1;
		}
		$sql = array();
		return $this->_init($sql, $options);
	}

	/**
	 * Adds a row to llx_c_type_contact unless one with this element, source and code exists.
	 *
	 * @param string $element Dolibarr's element name ('commande')
	 * @param string $source 'internal' (a user) or 'external' (a contact)
	 * @param string $code The type's code
	 * @param string $label Its label where no translation TypeContact_<element>_<source>_<code> exists
	 * @return int 1 added or there, -1 on a database error
	 */
	private function addContactType($element, $source, $code, $label)
	{
		$where = " WHERE element = '".$this->db->escape($element)."' AND source = '".$this->db->escape($source)."' AND code = '".$this->db->escape($code)."'";
		$resql = $this->db->query("SELECT rowid FROM ".MAIN_DB_PREFIX."c_type_contact".$where);
		if (!$resql) {
			return -1;
		}
		if ($this->db->fetch_object($resql)) {
			return 1;
		}
		$resql = $this->db->query("SELECT MAX(rowid) as maxid FROM ".MAIN_DB_PREFIX."c_type_contact");
		$obj = $resql ? $this->db->fetch_object($resql) : null;
		if (!$obj) {
			return -1;
		}
		$sql = "INSERT INTO ".MAIN_DB_PREFIX."c_type_contact (rowid, element, source, code, libelle, active, module, position)";
		$sql .= " VALUES (".((int) $obj->maxid + 1).", '".$this->db->escape($element)."', '".$this->db->escape($source)."', '".$this->db->escape($code)."', '".$this->db->escape($label)."', 1, 'bericht', 0)";
		return $this->db->query($sql) ? 1 : -1;
	}

	/**
	 * Called when the module is deactivated. The service's tables and files stay.
	 *
	 * @param string $options Options when disabling module ('', 'noboxes')
	 * @return int 1 if OK, <=0 if KO
	 */
	public function remove($options = '')
	{
		$sql = array();
		return $this->_remove($sql, $options);
	}
}
