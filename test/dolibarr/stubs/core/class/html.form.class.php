<?php
/* Stand-in for Dolibarr's Form (html.form.class.php): the methods a list uses, with Dolibarr 22's
 * signatures, printing plain HTML that tests can read (not Dolibarr's code). */
class Form
{
	public $db;
	public function __construct($db)
	{
		$this->db = $db;
	}

	/** The mass action select and its confirm button (only when there are actions). */
	public function selectMassAction($selected, $arrayofaction, $alwaysvisible = 0, $name = 'massaction', $cssclass = 'checkforselect')
	{
		if (!count($arrayofaction)) {
			return '';
		}
		$out = '<select class="flat massaction" name="'.$name.'"><option value="0">-- Select action --</option>';
		foreach ($arrayofaction as $code => $label) {
			$out .= '<option value="'.$code.'">'.$label.'</option>';
		}
		return $out.'</select><input type="submit" name="confirmmassaction" value="Confirm">';
	}

	/** As Dolibarr's: the user's saved columns (MAIN_SELECTEDFIELDS_<varpage>) decide 'checked'; disabled columns go. */
	public static function multiSelectArrayWithCheckbox($htmlname, &$array, $varpage, $pos = '')
	{
		global $user;
		$tmpvar = 'MAIN_SELECTEDFIELDS_'.$varpage;
		if (!empty($user->conf->$tmpvar)) {
			$tmparray = explode(',', $user->conf->$tmpvar);
			foreach ($array as $key => $val) {
				$array[$key]['checked'] = in_array($key, $tmparray) ? 1 : 0;
			}
		}
		$out = '<dl class="dropdown" data-selectedfields="'.$htmlname.'">';
		foreach ($array as $key => $val) {
			if (array_key_exists('enabled', $val) && !$val['enabled']) {
				unset($array[$key]);
				continue;
			}
			$out .= '<input type="checkbox" name="'.$htmlname.'_'.$key.'" value="'.$key.'"'.(empty($val['checked']) ? '' : ' checked').'>';
		}
		return $out.'</dl>';
	}

	public function showCheckAddButtons($cssclass = 'checkforaction', $calljsfunction = 0, $massactionname = 'massaction')
	{
		return '<input type="checkbox" id="'.$cssclass.'s" class="checkallactions">';
	}

	public function showFilterButtons($pos = '')
	{
		return '<button type="submit" name="button_search_x" value="x">S</button><button type="submit" name="button_removefilter_x" value="x">X</button>';
	}

	/** Day, month and year fields <prefix>day, <prefix>month, <prefix>year; -1 or '' shows them empty. */
	public function selectDate($set_time = '', $prefix = 're', $h = 0, $m = 0, $empty = 0, $form_name = '', $d = 1, $addnowlink = 0, $disabled = 0, $fullday = '', $addplusone = '', $adddateof = '', $openinghours = '', $stepminutes = 1, $labeladddateof = '', $placeholder = '', $gm = 'auto', $calendarpicto = '')
	{
		$set = ($set_time !== '' && $set_time != -1);
		$out = '<span class="selectdate" data-prefix="'.$prefix.'" data-placeholder="'.$placeholder.'">';
		foreach (array('day' => 'd', 'month' => 'm', 'year' => 'Y') as $part => $format) {
			$out .= '<input type="text" name="'.$prefix.$part.'" value="'.($set ? (int) gmdate($format, (int) $set_time) : '').'">';
		}
		return $out.'</span>';
	}

	public static function selectarray($htmlname, $array, $id = '', $show_empty = 0, $key_in_label = 0, $value_as_key = 0, $moreparam = '', $translate = 0, $maxlen = 0, $disabled = 0, $sort = '', $morecss = 'minwidth75', $addjscombo = 1, $moreparamonempty = '', $disablebademail = 0, $nohtmlescape = 0)
	{
		$out = '<select class="flat '.$morecss.'" name="'.$htmlname.'">';
		if ($show_empty) {
			$out .= '<option value="'.(((int) $show_empty) < 0 ? $show_empty : -1).'"'.($id == $show_empty ? ' selected' : '').'>&nbsp;</option>';
		}
		foreach ($array as $key => $value) {
			$id = (string) $id;
			$out .= '<option value="'.$key.'"'.($id != '' && $id == (string) $key ? ' selected' : '').'>'.htmlspecialchars((string) $value).'</option>';
		}
		return $out.'</select>';
	}

	/** The confirm box; with $disableformtag inside the list's form, so its selection goes along. */
	public function formconfirm($page, $title, $question, $action, $formquestion = '', $selectedchoice = '', $useajax = 0, $height = 0, $width = 500, $disableformtag = 0, $labelbuttonyes = 'Yes', $labelbuttonno = 'No')
	{
		return '<div class="formconfirm" data-action="'.$action.'" data-page="'.$page.'"><b>'.$title.'</b> '.$question.'<input type="hidden" name="action" value="'.$action.'"><select name="confirm"><option value="yes">Yes</option><option value="no">No</option></select></div>';
	}
}
