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

	## Whether the package's compiled sensor (its Zeek plugin) logs the packets where it is
	## installed; F, or a Zeek without the plugin, leaves it to the script's own per-packet
	## handlers (the same records, at several times the cost per packet).
	option use_plugin = T;

	## How the events are written.
	type Encoding: enum {
		## The contract's JSON form (schemas/packet-event.schema.json): critpath_packets.log.
		JSON,
		## Avro single-object records of schemas/packet-event.avsc, about a third of JSON's bytes:
		## critpath_packets.avro, one record after another (the Kafka messages' bytes). The compiled
		## sensor only; the script path writes JSON whatever this says.
		AVRO,
	};

	## How the compiled sensor writes its events, to its file and to Kafka; read once, at start.
	option encoding = JSON;

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

	## Which path logs the packets: "compiled" (the plugin) or "script"; set at zeek_init.
	global active_path = "script";

	## Packets not logged because their connection reached the cap.
	global packets_over_cap = 0;

	## Packets Zeek discarded as longer than they were on the wire (weird ``truncated_IP_len``)
	## that the sensor could not read from their bytes either (not Ethernet, or cut inside the
	## TCP header): each is a packet missing from the events.
	global packets_unread = 0;

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

## The event group of the script's per-packet handlers, off while the compiled sensor runs.
const SCRIPT_PATH = "critpath-script-path";

# Bits of the TCP flags byte.
const SYN = 0x02;
const ACK = 0x10;

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
@ifdef ( CritPath::start_compiled_sensor )
	if ( use_plugin && start_compiled_sensor() )
		{
		disable_event_group(SCRIPT_PATH);
		active_path = "compiled";
		}
@endif
	if ( encoding == AVRO && active_path != "compiled" )
		Reporter::warning("CritPath::encoding=AVRO needs the compiled sensor (its plugin), which is not running: the events are JSON");
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

# The record of the sensor's next packet, one of the connection named the way round id does.
function new_record(id: conn_id, cid: string, src: addr, tcph: tcp_hdr): Info
	{
	local rec = Info($sensor=sensor_name, $sensor_role=role_text,
	                 # the packet's own stamp: network_time() never goes back, so where a capture's
	                 # stamps do it is the latest time seen. double_to_count rounds to the microsecond.
	                 $ts_us=double_to_count(time_to_double(get_current_packet_ts()) * 1000000.0),
	                 $community_id=cid,
	                 $orig_h=id$orig_h, $orig_p=port_to_count(id$orig_p),
	                 $resp_h=id$resp_h, $resp_p=port_to_count(id$resp_p),
	                 $is_orig=src == id$orig_h && tcph$sport == id$orig_p,
	                 $flags=tcph$flags, $seq=tcph$seq, $ack=tcph$ack, $len=tcph$dl,
	                 $win=tcph$win, $ttl=0, $capture_index=capture_index);
	++capture_index;
	return rec;
	}

event new_packet(c: connection, p: pkt_hdr) &group=SCRIPT_PATH
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
		judge(c, (p$tcp$flags & (SYN | ACK)) == (SYN | ACK) && src == c$id$orig_h && p$tcp$sport == c$id$orig_p);
	if ( ! c$critpath_watched )
		return;
	if ( c$critpath_logged >= max_packets_per_connection )
		{
		++packets_over_cap;
		return;
		}
	++c$critpath_logged;

	local rec = new_record(c?$critpath_id ? c$critpath_id : c$id, c$critpath_cid, src, p$tcp);
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

function add_options(rec: Info, options: TCP::OptionList)
	{
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
	}

event tcp_options(c: connection, is_orig: bool, options: TCP::OptionList) &group=SCRIPT_PATH
	{
	if ( |pending| == 0 )
		return;
	add_options(pending[0], options);
	flush();
	}

event zeek_done() &group=SCRIPT_PATH
	{
	flush();
	}

# Zeek discards a packet whose IP total length exceeds its length on the wire (weird
# truncated_IP_len) before any script sees it, where critpath's pcap reader keeps it and takes
# the IP header's length: read such packets from their bytes, every one of them, not a sample.
redef Weird::sampling_whitelist += { "truncated_IP_len" };

# The TCP options in b, as tcp_options gives them: those the capture kept.
function options_from_raw(b: string): TCP::OptionList
	{
	local out: TCP::OptionList = vector();
	local i = 0;
	while ( i < |b| )
		{
		local kind = bytestring_to_count(b[i]);
		if ( kind == 0 )
			break;
		if ( kind == 1 )
			{
			++i;
			next;
			}
		if ( i + 2 > |b| )
			break;
		local len = bytestring_to_count(b[i + 1]);
		if ( len < 2 || i + len > |b| )
			break;
		local o = TCP::Option($kind=kind, $length=len);
		local v = b[i + 2:i + len];
		if ( kind == 2 && len == 4 )
			o$mss = bytestring_to_count(v);
		else if ( kind == 3 && len == 3 )
			o$window_scale = bytestring_to_count(v);
		else if ( kind == 5 && len % 8 == 2 )
			{
			o$sack = index_vec();
			local j = 0;
			while ( j < len - 2 )
				{
				o$sack[|o$sack|] = bytestring_to_count(v[j:j + 4]);
				j += 4;
				}
			}
		else if ( kind == 8 && len == 10 )
			{
			o$send_timestamp = bytestring_to_count(v[0:4]);
			o$echo_timestamp = bytestring_to_count(v[4:8]);
			}
		out[|out|] = o;
		i += len;
		}
	return out;
	}

# Which end of a flow seen first in this packet is the originator, as critpath's pcap reader
# decides it: the SYN's sender, the SYN/ACK's receiver, else the client of the service port.
function sender_is_originator(flags: count, sport: count, dport: count): bool
	{
	if ( (flags & SYN) != 0 )
		return (flags & ACK) == 0;
	return ! ((sport < 1024 && dport >= 1024) || (sport < dport && dport >= 32768));
	}

event net_weird(name: string, addl: string, source: string) &group=SCRIPT_PATH
	{
	if ( name != "truncated_IP_len" )
		return;
	flush();
	local l2 = get_current_packet_header()$l2;
	local d = get_current_packet()$data;
	if ( l2$encap != LINK_ETHERNET || ! l2?$eth_type )
		{
		++packets_unread;
		return;
		}
	local ip = 14 + (l2?$vlan ? 4 : 0) + (l2?$inner_vlan ? 4 : 0);
	local src: addr;
	local dst: addr;
	local t = 0;         # where the TCP header starts
	local ip_payload = 0; # TCP header and payload, as the IP header says
	local ttl = 0;
	if ( l2$eth_type == 0x0800 && |d| >= ip + 20 )
		{
		if ( bytestring_to_count(d[ip + 9]) != 6 )
			return;
		local ihl = (bytestring_to_count(d[ip]) % 16) * 4;
		local total = bytestring_to_count(d[ip + 2:ip + 4]);
		if ( ihl < 20 || total < ihl )
			return;
		src = raw_bytes_to_v4_addr(d[ip + 12:ip + 16]);
		dst = raw_bytes_to_v4_addr(d[ip + 16:ip + 20]);
		ttl = bytestring_to_count(d[ip + 8]);
		t = ip + ihl;
		ip_payload = total - ihl;
		}
	else if ( l2$eth_type == 0x86dd && |d| >= ip + 40 )
		{
		if ( bytestring_to_count(d[ip + 6]) != 6 )
			return;
		src = raw_bytes_to_v6_addr(d[ip + 8:ip + 24]);
		dst = raw_bytes_to_v6_addr(d[ip + 24:ip + 40]);
		ttl = bytestring_to_count(d[ip + 7]);
		t = ip + 40;
		ip_payload = bytestring_to_count(d[ip + 4:ip + 6]);
		}
	if ( t == 0 || |d| < t + 20 )
		{
		++packets_unread;
		return;
		}
	local h = d[t:t + 20];
	local offset_byte = bytestring_to_count(h[12:13]);
	local hl = (offset_byte / 16) * 4;
	if ( hl < 20 || hl > ip_payload )
		return;
	local sport = bytestring_to_count(h[0:2]);
	local dport = bytestring_to_count(h[2:4]);
	local tcph = tcp_hdr($sport=count_to_port(sport, tcp), $dport=count_to_port(dport, tcp),
	                     $seq=bytestring_to_count(h[4:8]), $ack=bytestring_to_count(h[8:12]),
	                     $hl=hl, $dl=ip_payload - hl, $reserved=offset_byte % 16,
	                     $flags=bytestring_to_count(h[13:14]), $win=bytestring_to_count(h[14:16]));

	local fwd = conn_id($orig_h=src, $orig_p=tcph$sport, $resp_h=dst, $resp_p=tcph$dport, $proto=6);
	local id: conn_id;
	local cid: string;
	if ( connection_exists(fwd) )
		{
		local c = lookup_connection(fwd);
		if ( ! c?$critpath_watched )
			judge(c, (tcph$flags & (SYN | ACK)) == (SYN | ACK) && src == c$id$orig_h && tcph$sport == c$id$orig_p);
		if ( ! c$critpath_watched )
			return;
		if ( c$critpath_logged >= max_packets_per_connection )
			{
			++packets_over_cap;
			return;
			}
		++c$critpath_logged;
		id = c?$critpath_id ? c$critpath_id : c$id;
		cid = c$critpath_cid;
		}
	else
		{
		# a flow Zeek has not seen yet (it lost the SYN, say)
		id = sender_is_originator(tcph$flags, sport, dport) ? fwd : reversed(fwd);
		cid = community_id(id);
		if ( ! watched(id) || ! sampled(cid) )
			return;
		}

	local rec = new_record(id, cid, src, tcph);
	rec$ttl = ttl;
	if ( l2$eth_type == 0x0800 )
		rec$ip_id = bytestring_to_count(d[ip + 4:ip + 6]);
	if ( hl > 20 )
		add_options(rec, options_from_raw(d[t + 20:t + hl]));
	Log::write(CritPath::LOG, rec);
	}
