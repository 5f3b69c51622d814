# Which path logs the packets: the compiled sensor where Zeek has the plugin, unless use_plugin is F.
# @TEST-REQUIRES: zeek -N CritPath::Sensor
# @TEST-EXEC: zeek $PACKAGE %INPUT > compiled
# @TEST-EXEC: zeek $PACKAGE %INPUT CritPath::use_plugin=F > script
# @TEST-EXEC: btest-diff compiled
# @TEST-EXEC: btest-diff script

event zeek_init() &priority=-10
	{
	print CritPath::active_path;
	}
