##! critpath sensor: one log record per TCP packet of the watched connections, exactly as
##! critpath's packet-event contract (schemas/packet-event.schema.json) defines it, for the
##! critpath pipeline to merge with the other site's sensor and analyse.

@load base/frameworks/logging

module CritPath;

export {
	redef enum Log::ID += { LOG };

	## Where the sensor sits, as a hint for the pipeline (it infers the role from timing
	## when the hint is "unknown").
	type Role: enum { CLIENT, SERVER, UNKNOWN };

	## Name of this capture point, unique in the fleet.
	option sensor_name = gethostname();

	## Which side of the connections this sensor is on.
	option sensor_role = UNKNOWN;

	## Networks to watch: a connection is watched when either end is in one of them.
	## Empty: every network.
	option watch_networks: set[subnet] = set();

	## Server ports to watch (the responder's port). Empty: every port.
	option watch_ports: set[port] = set();

	## Share of connections to watch, in thousandths, chosen by a hash of the Community ID so
	## that every sensor of the fleet picks the same connections.
	option sample_permille = 1000;

	## Most packets logged per connection; later ones are counted in
	## :zeek:see:`CritPath::packets_over_cap` and the pipeline flags the connection.
	option max_packets_per_connection = 200000;

	## Seed of the Community ID; every sensor of the fleet must use the same.
	option community_id_seed = 0;

	## One TCP packet as this sensor saw it (field names and meanings: schemas/README.md).
	type Info: record {
		sensor: string &log;
		sensor_role: string &log;
		## Capture time, microseconds since the epoch, on this sensor's clock.
		ts_us: count &log;
		community_id: string &log;
		orig_h: addr &log;
		orig_p: count &log;
		resp_h: addr &log;
		resp_p: count &log;
		is_orig: bool &log;
		## TCP flags byte.
		flags: count &log;
		## Absolute sequence and acknowledgement numbers.
		seq: count &log;
		ack: count &log;
		## TCP payload length from the IP header.
		len: count &log;
		## Raw (unscaled) window field.
		win: count &log;
		wscale: count &log &optional;
		mss: count &log &optional;
		sack_ok: bool &log &optional;
		## SACK blocks flattened [left1, right1, ...].
		sack: vector of count &log &optional;
		tsval: count &log &optional;
		tsecr: count &log &optional;
		ip_id: count &log &optional;
		ttl: count &log;
		## This sensor's running count of the packets it logged, from 0.
		capture_index: count &log;
	};

	## Packets not logged because their connection reached the cap.
	global packets_over_cap = 0;

	## Raised for every record before it is logged.
	global log_packet: event(rec: Info);
}

redef record connection += {
	## Packets logged for the connection, or absent while it was not yet judged.
	critpath_logged: count &optional;
	## False when the connection is not watched.
	critpath_watched: bool &optional;
	## Its Community ID, computed once.
	critpath_cid: string &optional;
	## The connection the way round its events name it, where that is not Zeek's: its first
	## packet was a SYN/ACK, whose receiver is the originator (Zeek turns the roles round only
	## while it handles a later packet).
	critpath_id: conn_id &optional;
};

global capture_index = 0;

## The record of the current packet while its TCP options are still to come (they are raised
## after new_packet for the same packet): none or one.
global pending: vector of Info = vector();

## sensor_role as the log writes it, kept up to date when the option changes.
global role_text = "unknown";

function role_changed(id: string, new_value: Role): Role
	{
	switch ( new_value ) {
	case CLIENT: role_text = "client"; break;
	case SERVER: role_text = "server"; break;
	default: role_text = "unknown"; break;
	}
	return new_value;
	}

event zeek_init() &priority=5
	{
	Log::create_stream(CritPath::LOG, [$columns=Info, $ev=log_packet, $path="critpath_packets"]);
	role_changed("CritPath::sensor_role", sensor_role);
	Option::set_change_handler("CritPath::sensor_role", role_changed);
	}

function sampled(cid: string): bool
	{
	if ( sample_permille >= 1000 )
		return T;
	# the first 32 bits of the MD5 of the Community ID: the same choice at every site
	local h = bytestring_to_count(hexstr_to_bytestring(sub_bytes(md5_hash(cid), 1, 8)));
	return h % 1000 < sample_permille;
	}

# Zeek's community_id_v1 orders the two ends of a flow whose addresses are equal (loopback,
# hairpin NAT) by the ports' network-order bytes read as host integers, which on little-endian
# machines differs from the specification (and from the pipeline's check); hash those as it says.
function community_id(id: conn_id): string
	{
	if ( id$orig_h != id$resp_h )
		return community_id_v1(id, community_id_seed);
	local lo = port_to_count(id$orig_p);
	local hi = port_to_count(id$resp_p);
	if ( lo > hi )
		{
		local t = lo;
		lo = hi;
		hi = t;
		}
	local words = addr_to_counts(id$orig_h);
	local a = "";
	for ( i in words )
		a += fmt("%08x", words[i]);
	local key = fmt("%04x", community_id_seed) + a + a + fmt("%02x00%04x%04x", 6, lo, hi);
	return "1:" + encode_base64(hexstr_to_bytestring(sha1_hash(hexstr_to_bytestring(key))));
	}

function watched(id: conn_id): bool
	{
	if ( |watch_ports| > 0 && id$resp_p !in watch_ports )
		return F;
	if ( |watch_networks| > 0 && id$orig_h !in watch_networks && id$resp_h !in watch_networks )
		return F;
	return T;
	}

function reversed(id: conn_id): conn_id
	{
	return conn_id($orig_h=id$resp_h, $orig_p=id$resp_p, $resp_h=id$orig_h, $resp_p=id$orig_p, $proto=id$proto);
	}

# Judges a connection on its first packet: which way round its events name it, its Community ID,
# whether it is watched.
function judge(c: connection, syn_ack_from_orig: bool)
	{
	if ( syn_ack_from_orig )
		c$critpath_id = reversed(c$id);
	local id = c?$critpath_id ? c$critpath_id : c$id;
	c$critpath_cid = community_id(id);
	c$critpath_watched = watched(id) && sampled(c$critpath_cid);
	c$critpath_logged = 0;
	}

function flush()
	{
	if ( |pending| == 0 )
		return;
	Log::write(CritPath::LOG, pending[0]);
	pending = vector();
	}

# Zeek leaves the TCP header out of pkt_hdr when the capture cut the packet short (sensors and
# header-only pcaps with a small snap length): read it from the raw packet then. The link-layer
# header is what the wire length has beyond the IP packet (truncated packets are never padded).
function tcp_from_raw(p: pkt_hdr): vector of tcp_hdr
	{
	local raw = get_current_packet();
	local ip_len = p?$ip ? p$ip$len : 40 + p$ip6$len;
	local ip_hl = p?$ip ? p$ip$hl : 40;
	local start = raw$len - ip_len + ip_hl;
	if ( raw$len < ip_len || raw$caplen < start + 20 || (p?$ip6 && p$ip6$nxt != 6) )
		return vector();
	local h = raw$data[start:start + 20];
	local offset_byte = bytestring_to_count(h[12:13]);
	local hl = (offset_byte / 16) * 4;
	# the ports are the connection's: only the source port is read, to tell the direction
	return vector(tcp_hdr($sport=count_to_port(bytestring_to_count(h[0:2]), tcp), $dport=0/tcp,
	                      $seq=bytestring_to_count(h[4:8]), $ack=bytestring_to_count(h[8:12]),
	                      $hl=hl, $dl=ip_len - ip_hl - hl,
	                      $reserved=offset_byte % 16, $flags=bytestring_to_count(h[13:14]),
	                      $win=bytestring_to_count(h[14:16])));
	}

event new_packet(c: connection, p: pkt_hdr)
	{
	flush();
	if ( ! p?$tcp )
		{
		# from the port: get_conn_transport_proto looks the flow up again and reports every id it
		# cannot find to reporter.log (ICMP ones, issue 21)
		if ( get_port_transport_proto(c$id$orig_p) != tcp )
			return;
		local cut = tcp_from_raw(p);
		if ( |cut| == 0 )
			return;
		p$tcp = cut[0];
		}
	local src = p?$ip ? p$ip$src : p$ip6$src;
	if ( ! c?$critpath_watched )
		judge(c, (p$tcp$flags & 18) == 18 && src == c$id$orig_h && p$tcp$sport == c$id$orig_p);
	if ( ! c$critpath_watched )
		return;
	if ( c$critpath_logged >= max_packets_per_connection )
		{
		++packets_over_cap;
		return;
		}
	++c$critpath_logged;

	local id = c?$critpath_id ? c$critpath_id : c$id;
	local rec = Info($sensor=sensor_name, $sensor_role=role_text,
	                 # the packet's own stamp: network_time() never goes back, so where a capture's
	                 # stamps do it is the latest time seen. double_to_count rounds to the microsecond.
	                 $ts_us=double_to_count(time_to_double(get_current_packet_ts()) * 1000000.0),
	                 $community_id=c$critpath_cid,
	                 $orig_h=id$orig_h, $orig_p=port_to_count(id$orig_p),
	                 $resp_h=id$resp_h, $resp_p=port_to_count(id$resp_p),
	                 $is_orig=src == id$orig_h && p$tcp$sport == id$orig_p,
	                 $flags=p$tcp$flags, $seq=p$tcp$seq, $ack=p$tcp$ack, $len=p$tcp$dl,
	                 $win=p$tcp$win, $ttl=0, $capture_index=capture_index);
	++capture_index;
	if ( p?$ip )
		{
		rec$ip_id = p$ip$id;
		rec$ttl = p$ip$ttl;
		}
	else
		rec$ttl = p$ip6$hlim;
	if ( p$tcp$hl > 20 )
		pending = vector(rec); # tcp_options follows for this packet
	else
		Log::write(CritPath::LOG, rec);
	}

event tcp_options(c: connection, is_orig: bool, options: TCP::OptionList)
	{
	if ( |pending| == 0 )
		return;
	local rec = pending[0];
	for ( i in options )
		{
		local o = options[i];
		switch ( o$kind ) {
		case 2:
			if ( o?$mss )
				rec$mss = o$mss;
			break;
		case 3:
			if ( o?$window_scale )
				rec$wscale = o$window_scale;
			break;
		case 4:
			rec$sack_ok = T;
			break;
		case 5:
			if ( o?$sack )
				rec$sack = o$sack;
			break;
		case 8:
			if ( o?$send_timestamp )
				{
				rec$tsval = o$send_timestamp;
				rec$tsecr = o$echo_timestamp;
				}
			break;
		}
		}
	flush();
	}

event zeek_done()
	{
	flush();
	}
