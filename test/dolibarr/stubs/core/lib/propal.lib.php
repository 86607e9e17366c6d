<?php
/* Stand-in: the tab head of Dolibarr's propal card. */
function propal_prepare_head($object)
{
	return array();
}
