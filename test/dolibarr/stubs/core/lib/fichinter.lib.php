<?php
/* Stand-in: the tab head of Dolibarr's fichinter card. */
function fichinter_prepare_head($object)
{
	return array();
}
