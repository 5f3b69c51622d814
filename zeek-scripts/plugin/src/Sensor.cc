#include "Sensor.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#ifdef CRITPATH_HAVE_RDKAFKA
#include <librdkafka/rdkafka.h>
#endif

#include <zeek/Conn.h>
#include <zeek/Desc.h>
#include <zeek/Reporter.h>
#include <zeek/ID.h>
#include <zeek/IP.h>
#include <zeek/RunState.h>
#include <zeek/digest.h>
#include <zeek/iosource/Packet.h>
#include <zeek/iosource/PktSrc.h>
#include <zeek/logging/Manager.h>
#include <zeek/packet_analysis/protocol/ip/SessionAdapter.h>
#include <zeek/session/Manager.h>
#include <zeek/threading/SerialTypes.h>
#include <zeek/threading/formatters/JSON.h>
#include <zeek/util.h>

#include "Plugin.h"

namespace critpath {

namespace {

constexpr uint8_t SYN = 0x02;
constexpr uint8_t ACK = 0x10;
constexpr uint8_t IPPROTO_TCP_NUMBER = 6;
constexpr uint16_t ETHERTYPE_IPV4 = 0x0800;
constexpr uint16_t ETHERTYPE_IPV6 = 0x86dd;
constexpr int DLT_ETHERNET = 1;

uint16_t be16(const u_char* p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }
uint32_t be32(const u_char* p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }

// The packet the packet source is handling (the outermost one), as the script's
// get_current_packet() gives it.
const zeek::Packet* current_packet() {
    const zeek::Packet* p = nullptr;
    auto* src = zeek::run_state::detail::current_packet_source();
    if ( ! src || ! src->GetCurrentPacket(&p) )
        return nullptr;
    return p;
}

// The script's stamp: get_current_packet_ts() in microseconds, rounded as double_to_count does.
uint64_t current_ts_us() {
    const zeek::Packet* p = current_packet();
    return static_cast<uint64_t>(rint((p ? p->time : 0.0) * 1000000.0));
}

// One option as Zeek's TCP analyzer records it for the tcp_options event, applied as the
// script's add_options applies it: the last valid one of a kind wins.
void apply_option(TcpOptions& o, unsigned kind, unsigned length, const u_char* data) {
    switch ( kind ) {
        case 2:
            if ( length == 4 ) {
                o.has_mss = true;
                o.mss = be16(data);
            }
            break;
        case 3:
            if ( length == 3 ) {
                o.has_wscale = true;
                o.wscale = data[0];
            }
            break;
        case 4: o.sack_ok = true; break;
        case 5:
            if ( length == 10 || length == 18 || length == 26 || length == 34 ) {
                o.has_sack = true;
                o.sack_len = static_cast<int>(length - 2) / 4;
                for ( int i = 0; i < o.sack_len; ++i )
                    o.sack[i] = be32(data + 4 * i);
            }
            break;
        case 8:
            if ( length == 10 ) {
                o.has_ts = true;
                o.tsval = be32(data);
                o.tsecr = be32(data + 4);
            }
            break;
        default: break;
    }
}

// The options of a TCP header as Zeek's analyzer walks them (TCPSessionAdapter::ParseTCPOptions).
TcpOptions zeek_options(const u_char* options, const u_char* end) {
    TcpOptions o;
    while ( options < end ) {
        unsigned kind = options[0];
        unsigned length;
        if ( kind < 2 )
            length = 1;
        else if ( options + 1 >= end )
            break;
        else
            length = options[1];
        if ( length == 0 || options + length > end )
            break;
        apply_option(o, kind, length, options + 2);
        options += length;
        if ( kind == 0 )
            break;
    }
    return o;
}

// The options as the script's options_from_raw reads them from a packet Zeek discarded.
TcpOptions script_options(const u_char* b, size_t n) {
    TcpOptions o;
    size_t i = 0;
    while ( i < n ) {
        unsigned kind = b[i];
        if ( kind == 0 )
            break;
        if ( kind == 1 ) {
            ++i;
            continue;
        }
        if ( i + 2 > n )
            break;
        unsigned length = b[i + 1];
        if ( length < 2 || i + length > n )
            break;
        const u_char* v = b + i + 2;
        if ( kind == 5 ) {
            // any length 8k + 2, an empty list included
            if ( length % 8 == 2 ) {
                o.has_sack = true;
                o.sack_len = 0;
                for ( unsigned j = 0; j < length - 2 && o.sack_len < 10; j += 4 )
                    o.sack[o.sack_len++] = be32(v + j);
            }
        }
        else
            apply_option(o, kind, length, v);
        i += length;
    }
    return o;
}

Endpoints names_of(const zeek::Connection* c) {
    return {c->OrigAddr(), ntohs(static_cast<uint16_t>(c->OrigPort())), c->RespAddr(),
            ntohs(static_cast<uint16_t>(c->RespPort()))};
}

Endpoints reversed(const Endpoints& e) { return {e.resp_h, e.resp_p, e.orig_h, e.orig_p}; }

zeek::detail::ID* script_id(const char* name) { return zeek::id::find(name).get(); }

// "name":"value" exactly as Zeek's JSON log formatter writes a string field, escaping included.
std::string json_string_field(const char* name, std::string_view value) {
    zeek::threading::Value v(zeek::TYPE_STRING, true);
    v.val.string_val.data = zeek::util::copy_string(value.data(), value.size());
    v.val.string_val.length = static_cast<int>(value.size());
    zeek::threading::formatter::JSON json(nullptr, zeek::threading::formatter::JSON::TS_EPOCH);
    zeek::ODesc d;
    json.Describe(&d, &v, name);
    std::string braced = d.Description();
    return braced.substr(1, braced.size() - 2);
}

void append_count(std::string& out, uint64_t v) {
    char digits[20];
    auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
    out.append(digits, end);
}

// ,"name":v
void append_field(std::string& out, const char* name, uint64_t v) {
    out += ",\"";
    out += name;
    out += "\":";
    append_count(out, v);
}

// Avro's binary encoding (zig-zag varints, length-prefixed strings, unions as branch then value).
void append_long(std::string& out, int64_t v) {
    uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
    while ( z > 0x7f ) {
        out += static_cast<char>((z & 0x7f) | 0x80);
        z >>= 7;
    }
    out += static_cast<char>(z);
}

void append_string(std::string& out, std::string_view v) {
    append_long(out, static_cast<int64_t>(v.size()));
    out.append(v);
}

// an optional field: the union's null branch, or its value's
void append_optional(std::string& out, bool present, int64_t v) {
    out += present ? '\x02' : '\x00';
    if ( present )
        append_long(out, v);
}

bool same_names(const Endpoints& a, const Endpoints& b) {
    return a.orig_p == b.orig_p && a.resp_p == b.resp_p && a.orig_h == b.orig_h && a.resp_h == b.resp_h;
}

bool script_bool(const char* name) { return zeek::id::find_const(name)->AsBool(); }

// Taps one connection for the sensor.
class ConnTap : public zeek::packet_analysis::TapAnalyzer {
public:
    ConnTap(Sensor& sensor, zeek::Connection* conn, std::shared_ptr<ConnState> state)
        : sensor(sensor), conn(conn), state(std::move(state)) {}

    void TapPacket(const zeek::Packet& pkt, zeek::packet_analysis::PacketAction action,
                   zeek::packet_analysis::SkipReason) override {
        sensor.Tapped(state, conn, pkt, action == zeek::packet_analysis::PacketAction::Deliver);
    }

    void Done() override { sensor.Forget(conn); }

private:
    Sensor& sensor;
    zeek::Connection* conn;
    std::shared_ptr<ConnState> state;
};

} // namespace

namespace avro {

// CRC-64-AVRO of packet-event.avsc's parsing canonical form (PacketEventAvro.FINGERPRINT)
constexpr uint64_t FINGERPRINT = 0x08ad3119534b12b1ULL;

std::string prefix(std::string_view sensor, std::string_view role) {
    std::string out = "\xc3\x01";
    for ( int i = 0; i < 8; ++i )
        out += static_cast<char>(FINGERPRINT >> (8 * i) & 0xff);
    append_string(out, sensor);
    static const std::string_view symbols[] = {"client", "server", "unknown"}; // the avsc's order
    auto symbol = std::find(std::begin(symbols), std::end(symbols), role);
    append_optional(out, symbol != std::end(symbols), symbol - std::begin(symbols));
    return out;
}

std::string names(std::string_view community_id, const Endpoints& id) {
    std::string out;
    append_string(out, community_id);
    append_string(out, id.orig_h.AsString());
    append_long(out, id.orig_p);
    append_string(out, id.resp_h.AsString());
    append_long(out, id.resp_p);
    return out;
}

void packet(std::string& out, const std::string& names, uint64_t ts_us, const Endpoints& id, const PacketFields& f,
            int64_t capture_index) {
    append_long(out, static_cast<int64_t>(ts_us));
    out += names;
    out += f.src == id.orig_h && f.sport == id.orig_p ? '\x01' : '\x00';
    append_long(out, f.flags);
    append_long(out, f.seq);
    append_long(out, f.ack);
    append_long(out, static_cast<int64_t>(f.len));
    append_long(out, f.win);
    const TcpOptions& o = f.options;
    append_optional(out, o.has_wscale, o.wscale);
    append_optional(out, o.has_mss, o.mss);
    out += o.sack_ok ? std::string_view("\x02\x01", 2) : std::string_view("\x00", 1); // a boolean is one byte
    out += o.has_sack ? '\x02' : '\x00';
    if ( o.has_sack ) {
        if ( o.sack_len > 0 ) {
            append_long(out, o.sack_len);
            for ( int i = 0; i < o.sack_len; ++i )
                append_long(out, o.sack[i]);
        }
        out += '\x00'; // the array's end
    }
    append_optional(out, o.has_ts, o.tsval);
    append_optional(out, o.has_ts, o.tsecr);
    append_optional(out, f.has_ip_id, f.ip_id);
    append_long(out, f.ttl);
    append_optional(out, capture_index >= 0, capture_index);
}

} // namespace avro

std::string avro_record(const zeek::RecordVal& r) {
    auto count = [&](const char* name) { return r.GetField(name)->AsCount(); };
    auto has = [&](const char* name) { return r.HasField(name); };
    Endpoints id{r.GetField("orig_h")->AsAddr(), static_cast<uint16_t>(count("orig_p")), r.GetField("resp_h")->AsAddr(),
                 static_cast<uint16_t>(count("resp_p"))};
    PacketFields f;
    bool is_orig = r.GetField("is_orig")->AsBool();
    f.src = is_orig ? id.orig_h : id.resp_h;
    f.sport = is_orig ? id.orig_p : id.resp_p;
    f.flags = count("flags");
    f.seq = count("seq");
    f.ack = count("ack");
    f.len = count("len");
    f.win = count("win");
    f.ttl = count("ttl");
    f.has_ip_id = has("ip_id");
    f.ip_id = f.has_ip_id ? count("ip_id") : 0;
    TcpOptions& o = f.options;
    o.has_wscale = has("wscale");
    o.wscale = o.has_wscale ? count("wscale") : 0;
    o.has_mss = has("mss");
    o.mss = o.has_mss ? count("mss") : 0;
    o.sack_ok = has("sack_ok") && r.GetField("sack_ok")->AsBool();
    o.has_sack = has("sack");
    if ( o.has_sack ) {
        auto* sack = r.GetField("sack")->AsVectorVal();
        o.sack_len = std::min<int>(sack->Size(), std::size(o.sack));
        for ( int i = 0; i < o.sack_len; ++i )
            o.sack[i] = sack->ValAt(i)->AsCount();
    }
    o.has_ts = has("tsval");
    o.tsval = o.has_ts ? count("tsval") : 0;
    o.tsecr = o.has_ts ? count("tsecr") : 0;
    std::string out = avro::prefix(r.GetField("sensor")->AsStringVal()->ToStdStringView(),
                                   r.GetField("sensor_role")->AsStringVal()->ToStdStringView());
    avro::packet(out, avro::names(r.GetField("community_id")->AsStringVal()->ToStdStringView(), id), count("ts_us"), id,
                 f, static_cast<int64_t>(count("capture_index")));
    return out;
}

struct Sensor::Kafka {
#ifdef CRITPATH_HAVE_RDKAFKA
    rd_kafka_t* producer = nullptr;
    rd_kafka_topic_t* topic = nullptr;
    uint64_t unpolled = 0;

    ~Kafka() {
        if ( ! producer )
            return;
        // what is still queued, as zeek-kafka waits for it at shutdown
        rd_kafka_flush(producer, 10000);
        if ( topic )
            rd_kafka_topic_destroy(topic);
        rd_kafka_destroy(producer);
    }
#endif
};

Sensor::Sensor() = default;
Sensor::~Sensor() = default;

bool Sensor::Start() {
    const auto& stream_val = zeek::id::find("CritPath::LOG");
    info = zeek::id::find_type<zeek::RecordType>("CritPath::Info");
    if ( ! stream_val || ! stream_val->GetVal() || ! info )
        return false;
    stream = zeek::cast_intrusive<zeek::EnumVal>(stream_val->GetVal());
    sensor_name = script_id("CritPath::sensor_name");
    role_text = script_id("CritPath::role_text");
    watch_networks = script_id("CritPath::watch_networks");
    watch_ports = script_id("CritPath::watch_ports");
    sample_permille = script_id("CritPath::sample_permille");
    max_packets = script_id("CritPath::max_packets_per_connection");
    seed = script_id("CritPath::community_id_seed");
    packets_over_cap = script_id("CritPath::packets_over_cap");
    packets_unread = script_id("CritPath::packets_unread");

    f_sensor = info->FieldOffset("sensor");
    f_role = info->FieldOffset("sensor_role");
    f_ts = info->FieldOffset("ts_us");
    f_cid = info->FieldOffset("community_id");
    f_orig_h = info->FieldOffset("orig_h");
    f_orig_p = info->FieldOffset("orig_p");
    f_resp_h = info->FieldOffset("resp_h");
    f_resp_p = info->FieldOffset("resp_p");
    f_is_orig = info->FieldOffset("is_orig");
    f_flags = info->FieldOffset("flags");
    f_seq = info->FieldOffset("seq");
    f_ack = info->FieldOffset("ack");
    f_len = info->FieldOffset("len");
    f_win = info->FieldOffset("win");
    f_wscale = info->FieldOffset("wscale");
    f_mss = info->FieldOffset("mss");
    f_sack_ok = info->FieldOffset("sack_ok");
    f_sack = info->FieldOffset("sack");
    f_tsval = info->FieldOffset("tsval");
    f_tsecr = info->FieldOffset("tsecr");
    f_ip_id = info->FieldOffset("ip_id");
    f_ttl = info->FieldOffset("ttl");
    f_capture_index = info->FieldOffset("capture_index");
    sack_type = zeek::cast_intrusive<zeek::VectorType>(info->GetFieldType(f_sack));
    avro = zeek::id::find_val<zeek::EnumVal>("CritPath::encoding")->Get() ==
           zeek::id::find_type<zeek::EnumType>("CritPath::Encoding")->Lookup("CritPath", "AVRO");
    direct = OpenOutputs();
    if ( avro && ! direct )
        zeek::reporter->Warning("critpath sensor: CritPath::encoding=AVRO, but the sensor cannot write its own outputs (above): JSON through Zeek's logging");
    started = true;
    return true;
}

bool Sensor::OpenOutputs() {
    // the fields the lines hold, in the order Info declares them
    static const char* const fields[] = {"sensor", "sensor_role", "ts_us", "community_id", "orig_h", "orig_p",
                                         "resp_h", "resp_p", "is_orig", "flags", "seq", "ack", "len", "win",
                                         "wscale", "mss", "sack_ok", "sack", "tsval", "tsecr", "ip_id", "ttl",
                                         "capture_index"};
    if ( info->NumFields() != static_cast<int>(std::size(fields)) )
        return false;
    for ( int i = 0; i < info->NumFields(); ++i )
        if ( std::strcmp(info->FieldName(i), fields[i]) != 0 )
            return false;
    // JSON lines stand in for LogAscii's log only where it would write them so; the Avro file is the sensor's own
    if ( ! avro && (! script_bool("LogAscii::use_json") || script_bool("LogAscii::json_include_unset_fields") ||
                    zeek::id::find_const("LogAscii::gzip_level")->AsCount() != 0 ||
                    zeek::id::find_const("Log::default_rotation_interval")->AsInterval() != 0) )
        return false;
    std::string logdir = zeek::id::find_const<zeek::StringVal>("Log::default_logdir")->ToStdString();
    file_name = (logdir.empty() ? "" : logdir + "/") + (avro ? "critpath_packets.avro" : "critpath_packets.log");

    const auto& to_kafka = zeek::id::find("Kafka::logs_to_send");
    if ( ! to_kafka || ! to_kafka->GetVal() || ! to_kafka->GetVal()->AsTableVal()->Find(stream) )
        return true;
#ifdef CRITPATH_HAVE_RDKAFKA
    // zeek-kafka's settings, as its writer applies them
    char error[512];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    auto* settings = zeek::id::find_val("Kafka::kafka_conf")->AsTableVal();
    auto keys = settings->ToPureListVal();
    for ( int i = 0; i < keys->Length(); ++i ) {
        std::string key = keys->Idx(i)->AsStringVal()->ToStdString();
        std::string value = settings->Find(keys->Idx(i))->AsStringVal()->ToStdString();
        if ( rd_kafka_conf_set(conf, key.c_str(), value.c_str(), error, sizeof error) != RD_KAFKA_CONF_OK ) {
            zeek::reporter->Error("critpath sensor: Kafka setting %s: %s", key.c_str(), error);
            rd_kafka_conf_destroy(conf);
            return false;
        }
    }
    kafka = std::make_unique<Kafka>();
    kafka->producer = rd_kafka_new(RD_KAFKA_PRODUCER, conf, error, sizeof error);
    if ( ! kafka->producer ) {
        zeek::reporter->Error("critpath sensor: no Kafka producer: %s", error);
        rd_kafka_conf_destroy(conf); // rd_kafka_new takes it only when it succeeds
        kafka.reset();
        return false;
    }
    std::string topic = zeek::id::find_val<zeek::StringVal>("Kafka::topic_name")->ToStdString();
    kafka->topic = rd_kafka_topic_new(kafka->producer, topic.c_str(), nullptr);
    return true;
#else
    // built without librdkafka: zeek-kafka carries the records
    return false;
#endif
}

void Sensor::Attach(zeek::Connection* conn) {
    if ( ! started || conn->ConnTransport() != TRANSPORT_TCP )
        return;
    auto state = std::make_shared<ConnState>();
    states[conn] = state;
    conn->GetSessionAdapter()->AddTapAnalyzer(std::make_unique<ConnTap>(*this, conn, std::move(state)));
}

void Sensor::Tapped(const std::shared_ptr<ConnState>& state, zeek::Connection* conn, const zeek::Packet& pkt,
                    bool delivered) {
    const zeek::IP_Hdr* hdr = pkt.ip_hdr.get();
    if ( ! hdr )
        return;
    const struct ip* ip4 = hdr->IP4_Hdr();
    const struct ip6_hdr* ip6 = hdr->IP6_Hdr();
    PacketFields f;
    f.ts_us = current_ts_us();
    f.src = hdr->IPHeaderSrcAddr();
    if ( ip4 ) {
        f.ttl = ip4->ip_ttl;
        f.has_ip_id = true;
        f.ip_id = ntohs(ip4->ip_id);
    }
    else
        f.ttl = ip6->ip6_hlim;

    // Zeek's pkt_hdr has the TCP header only where the capture holds the whole IP packet;
    // the script reads it from the raw packet otherwise (tcp_from_raw).
    const u_char* ip_start = ip4 ? reinterpret_cast<const u_char*>(ip4) : reinterpret_cast<const u_char*>(ip6);
    int64_t captured = hdr->Reassembled() ? 0 : pkt.data + pkt.cap_len - ip_start;
    uint64_t hl;
    if ( ! (captured > 0 && captured < hdr->HdrLen() + hdr->PayloadLen()) && hdr->PayloadLen() >= 20 ) {
        const u_char* t = hdr->Payload();
        hl = (t[12] >> 4) * 4;
        f.len = hdr->PayloadLen() >= hl ? hdr->PayloadLen() - hl : 0;
        f.sport = be16(t);
        f.seq = be32(t + 4);
        f.ack = be32(t + 8);
        f.flags = t[13];
        f.win = be16(t + 14);
    }
    else {
        const zeek::Packet* raw = current_packet();
        uint64_t ip_len = ip4 ? ntohs(ip4->ip_len) : 40 + ntohs(ip6->ip6_plen);
        uint64_t ip_hl = ip4 ? ip4->ip_hl * 4 : 40;
        if ( ! raw || raw->len < ip_len )
            return;
        uint64_t start = raw->len - ip_len + ip_hl;
        if ( raw->cap_len < start + 20 || (ip6 && ip6->ip6_nxt != IPPROTO_TCP_NUMBER) )
            return;
        const u_char* t = raw->data + start;
        hl = (t[12] >> 4) * 4;
        f.len = ip_len - ip_hl - hl;
        f.sport = be16(t);
        f.seq = be32(t + 4);
        f.ack = be32(t + 8);
        f.flags = t[13];
        f.win = be16(t + 14);
    }
    // Zeek's TCP analysis raises tcp_options for the packets it reads the header of
    if ( hl > 20 && delivered ) {
        const u_char* t = hdr->Payload();
        f.options = zeek_options(t + 20, t + (t[12] >> 4) * 4);
    }
    pending.push_back({{zeek::NewRef{}, conn}, state, f});
}

void Sensor::Flush() {
    for ( auto& p : pending ) {
        if ( ! Admit(*p.state, p.conn.get(), p.fields) )
            continue;
        const ConnState& s = *p.state;
        Log(s.reversed ? s.reversed_names : names_of(p.conn.get()), s.community_id, p.fields, p.state.get());
    }
    pending.clear();
}

bool Sensor::Admit(ConnState& s, const zeek::Connection* conn, const PacketFields& f) {
    if ( ! s.judged ) {
        Endpoints z = names_of(conn);
        Judge(s, z, (f.flags & (SYN | ACK)) == (SYN | ACK) && f.src == z.orig_h && f.sport == z.orig_p);
    }
    if ( ! s.watched )
        return false;
    if ( s.logged >= max_packets->GetVal()->AsCount() ) {
        Increment(packets_over_cap);
        return false;
    }
    ++s.logged;
    return true;
}

void Sensor::Judge(ConnState& s, const Endpoints& zeek_names, bool syn_ack_from_orig) const {
    s.judged = true;
    s.reversed = syn_ack_from_orig;
    if ( s.reversed )
        s.reversed_names = reversed(zeek_names);
    const Endpoints& id = s.reversed ? s.reversed_names : zeek_names;
    s.community_id = CommunityId(id);
    s.watched = Watched(id) && Sampled(*s.community_id);
}

bool Sensor::Watched(const Endpoints& id) const {
    auto* ports = watch_ports->GetVal()->AsTableVal();
    if ( ports->Size() > 0 && ! ports->Find(zeek::val_mgr->Port(id.resp_p, TRANSPORT_TCP)) )
        return false;
    auto* networks = watch_networks->GetVal()->AsTableVal();
    return networks->Size() == 0 || networks->Contains(id.orig_h) || networks->Contains(id.resp_h);
}

// The first 32 bits of the MD5 of the Community ID: the same choice at every site.
bool Sensor::Sampled(const zeek::StringVal& community_id) const {
    zeek_uint_t permille = sample_permille->GetVal()->AsCount();
    if ( permille >= 1000 )
        return true;
    u_char digest[ZEEK_MD5_DIGEST_LENGTH];
    zeek::detail::calculate_digest(zeek::detail::Hash_MD5, community_id.Bytes(), community_id.Len(), digest);
    return be32(digest) % 1000 < permille;
}

// Community ID v1 as its specification defines it, also for flows whose two ends share an
// address (where Zeek's community_id_v1 orders the ports by their network-order bytes).
zeek::StringValPtr Sensor::CommunityId(const Endpoints& id) const {
    bool keep = id.orig_h < id.resp_h || (id.orig_h == id.resp_h && id.orig_p <= id.resp_p);
    const Endpoints& e = keep ? id : reversed(id);
    u_char key[2 + 16 + 16 + 2 + 4];
    size_t n = 0;
    auto put16 = [&](uint16_t v) {
        key[n++] = v >> 8;
        key[n++] = v & 0xff;
    };
    put16(static_cast<uint16_t>(seed->GetVal()->AsCount()));
    for ( const zeek::IPAddr* a : {&e.orig_h, &e.resp_h} ) {
        const uint32_t* words;
        int count = a->GetBytes(&words);
        std::memcpy(key + n, words, 4 * count);
        n += 4 * count;
    }
    key[n++] = IPPROTO_TCP_NUMBER;
    key[n++] = 0;
    put16(e.orig_p);
    put16(e.resp_p);

    u_char digest[ZEEK_SHA_DIGEST_LENGTH];
    zeek::detail::calculate_digest(zeek::detail::Hash_SHA1, key, n, digest);
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out = "1:";
    for ( size_t i = 0; i < sizeof digest; i += 3 ) {
        uint32_t v = digest[i] << 16 | (i + 1 < sizeof digest ? digest[i + 1] << 8 : 0) |
                     (i + 2 < sizeof digest ? digest[i + 2] : 0);
        out += alphabet[v >> 18 & 63];
        out += alphabet[v >> 12 & 63];
        out += i + 1 < sizeof digest ? alphabet[v >> 6 & 63] : '=';
        out += i + 2 < sizeof digest ? alphabet[v & 63] : '=';
    }
    return zeek::make_intrusive<zeek::StringVal>(out);
}

const std::string& Sensor::Names(ConnState* state, const Endpoints& id, const zeek::StringValPtr& community_id) {
    static std::string scratch;
    std::string& out = state ? state->names : scratch;
    if ( state && ! out.empty() && same_names(state->names_for, id) )
        return out;
    if ( avro )
        out = avro::names(community_id->ToStdStringView(), id);
    else {
        out = json_string_field("community_id", community_id->ToStdStringView());
        out += ",\"orig_h\":\"" + id.orig_h.AsString() + "\"";
        append_field(out, "orig_p", id.orig_p);
        out += ",\"resp_h\":\"" + id.resp_h.AsString() + "\"";
        append_field(out, "resp_p", id.resp_p);
    }
    if ( state )
        state->names_for = id;
    return out;
}

void Sensor::Log(const Endpoints& id, const zeek::StringValPtr& community_id, const PacketFields& f,
                 ConnState* state) {
    if ( ! direct ) {
        LogRecord(id, community_id, f);
        return;
    }
    const zeek::Val* name = sensor_name->GetVal().get();
    const zeek::Val* role = role_text->GetVal().get();
    if ( name != prefix_name || role != prefix_role ) {
        std::string_view name_text = name->AsStringVal()->ToStdStringView();
        std::string_view role_value = role->AsStringVal()->ToStdStringView();
        prefix = avro ? avro::prefix(name_text, role_value)
                      : "{" + json_string_field("sensor", name_text) + "," + json_string_field("sensor_role", role_value) +
                            ",\"ts_us\":";
        prefix_name = name;
        prefix_role = role;
    }
    line = prefix;
    if ( avro )
        avro::packet(line, Names(state, id, community_id), f.ts_us, id, f, static_cast<int64_t>(capture_index++));
    else
        FormatJson(id, community_id, f, state);
    Emit();
}

// The rest of the JSON line after its prefix.
void Sensor::FormatJson(const Endpoints& id, const zeek::StringValPtr& community_id, const PacketFields& f,
                        ConnState* state) {
    append_count(line, f.ts_us);
    line += ',';
    line += Names(state, id, community_id);
    line += f.src == id.orig_h && f.sport == id.orig_p ? ",\"is_orig\":true" : ",\"is_orig\":false";
    append_field(line, "flags", f.flags);
    append_field(line, "seq", f.seq);
    append_field(line, "ack", f.ack);
    append_field(line, "len", f.len);
    append_field(line, "win", f.win);
    const TcpOptions& o = f.options;
    if ( o.has_wscale )
        append_field(line, "wscale", o.wscale);
    if ( o.has_mss )
        append_field(line, "mss", o.mss);
    if ( o.sack_ok )
        line += ",\"sack_ok\":true";
    if ( o.has_sack ) {
        line += ",\"sack\":[";
        for ( int i = 0; i < o.sack_len; ++i ) {
            if ( i > 0 )
                line += ',';
            append_count(line, o.sack[i]);
        }
        line += ']';
    }
    if ( o.has_ts ) {
        append_field(line, "tsval", o.tsval);
        append_field(line, "tsecr", o.tsecr);
    }
    if ( f.has_ip_id )
        append_field(line, "ip_id", f.ip_id);
    append_field(line, "ttl", f.ttl);
    append_field(line, "capture_index", capture_index++);
    line += '}';
}

void Sensor::Emit() {
#ifdef CRITPATH_HAVE_RDKAFKA
    if ( kafka ) {
        // copied: librdkafka sends from its own threads, in batches
        if ( rd_kafka_produce(kafka->topic, RD_KAFKA_PARTITION_UA, RD_KAFKA_MSG_F_COPY, line.data(), line.size(),
                              nullptr, 0, nullptr) != 0 &&
             rd_kafka_last_error() == RD_KAFKA_RESP_ERR__QUEUE_FULL ) {
            rd_kafka_poll(kafka->producer, 100);
            if ( rd_kafka_produce(kafka->topic, RD_KAFKA_PARTITION_UA, RD_KAFKA_MSG_F_COPY, line.data(),
                                  line.size(), nullptr, 0, nullptr) != 0 )
                zeek::reporter->Error("critpath sensor: Kafka send failed: %s",
                                      rd_kafka_err2str(rd_kafka_last_error()));
        }
        if ( ++kafka->unpolled == 1000 ) {
            rd_kafka_poll(kafka->producer, 0);
            kafka->unpolled = 0;
        }
    }
#endif
    if ( ! file ) {
        file = std::fopen(file_name.c_str(), "w");
        if ( ! file ) {
            zeek::reporter->FatalError("critpath sensor: cannot write %s: %s", file_name.c_str(), std::strerror(errno));
        }
        std::setvbuf(file, nullptr, _IOFBF, 1 << 20);
    }
    if ( ! avro )
        line += '\n';
    std::fwrite(line.data(), 1, line.size(), file);
}

void Sensor::Finish() {
    Flush();
    if ( file ) {
        std::fclose(file);
        file = nullptr;
    }
    kafka.reset();
}

void Sensor::LogRecord(const Endpoints& id, const zeek::StringValPtr& community_id, const PacketFields& f) {
    auto rec = zeek::make_intrusive<zeek::RecordVal>(info);
    rec->Assign(f_sensor, sensor_name->GetVal());
    rec->Assign(f_role, role_text->GetVal());
    rec->Assign(f_ts, f.ts_us);
    rec->Assign(f_cid, community_id);
    rec->Assign(f_orig_h, zeek::make_intrusive<zeek::AddrVal>(id.orig_h));
    rec->Assign(f_orig_p, uint64_t(id.orig_p));
    rec->Assign(f_resp_h, zeek::make_intrusive<zeek::AddrVal>(id.resp_h));
    rec->Assign(f_resp_p, uint64_t(id.resp_p));
    rec->Assign(f_is_orig, f.src == id.orig_h && f.sport == id.orig_p);
    rec->Assign(f_flags, uint64_t(f.flags));
    rec->Assign(f_seq, uint64_t(f.seq));
    rec->Assign(f_ack, uint64_t(f.ack));
    rec->Assign(f_len, f.len);
    rec->Assign(f_win, uint64_t(f.win));
    const TcpOptions& o = f.options;
    if ( o.has_wscale )
        rec->Assign(f_wscale, uint64_t(o.wscale));
    if ( o.has_mss )
        rec->Assign(f_mss, uint64_t(o.mss));
    if ( o.sack_ok )
        rec->Assign(f_sack_ok, true);
    if ( o.has_sack ) {
        auto sack = zeek::make_intrusive<zeek::VectorVal>(sack_type);
        for ( int i = 0; i < o.sack_len; ++i )
            sack->Assign(i, zeek::val_mgr->Count(o.sack[i]));
        rec->Assign(f_sack, std::move(sack));
    }
    if ( o.has_ts ) {
        rec->Assign(f_tsval, uint64_t(o.tsval));
        rec->Assign(f_tsecr, uint64_t(o.tsecr));
    }
    if ( f.has_ip_id )
        rec->Assign(f_ip_id, uint64_t(f.ip_id));
    rec->Assign(f_ttl, uint64_t(f.ttl));
    rec->Assign(f_capture_index, capture_index++);
    zeek::log_mgr->Write(stream.get(), rec.get());
}

void Sensor::Increment(zeek::detail::ID* counter) {
    counter->SetVal(zeek::val_mgr->Count(counter->GetVal()->AsCount() + 1));
}

// The script's net_weird handler: the packet read from its bytes (Ethernet and VLAN framing,
// IPv4 and IPv6), counted in packets_unread where it cannot be.
void Sensor::TruncatedIPLen() {
    if ( ! started )
        return;
    Flush();
    const zeek::Packet* raw = current_packet();
    if ( ! raw )
        return;
    if ( raw->link_type != DLT_ETHERNET ) {
        Increment(packets_unread);
        return;
    }
    const u_char* d = raw->data;
    size_t n = raw->cap_len;
    size_t ip = 14 + (raw->vlan ? 4 : 0) + (raw->inner_vlan ? 4 : 0);
    PacketFields f;
    zeek::IPAddr dst;
    size_t t = 0;          // where the TCP header starts
    uint64_t ip_payload = 0; // TCP header and payload, as the IP header says
    if ( raw->eth_type == ETHERTYPE_IPV4 && n >= ip + 20 ) {
        if ( d[ip + 9] != IPPROTO_TCP_NUMBER )
            return;
        unsigned ihl = (d[ip] & 15) * 4;
        unsigned total = be16(d + ip + 2);
        if ( ihl < 20 || total < ihl )
            return;
        f.src = zeek::IPAddr(*reinterpret_cast<const in4_addr*>(d + ip + 12));
        dst = zeek::IPAddr(*reinterpret_cast<const in4_addr*>(d + ip + 16));
        f.ttl = d[ip + 8];
        f.has_ip_id = true;
        f.ip_id = be16(d + ip + 4);
        t = ip + ihl;
        ip_payload = total - ihl;
    }
    else if ( raw->eth_type == ETHERTYPE_IPV6 && n >= ip + 40 ) {
        if ( d[ip + 6] != IPPROTO_TCP_NUMBER )
            return;
        f.src = zeek::IPAddr(*reinterpret_cast<const in6_addr*>(d + ip + 8));
        dst = zeek::IPAddr(*reinterpret_cast<const in6_addr*>(d + ip + 24));
        f.ttl = d[ip + 7];
        t = ip + 40;
        ip_payload = be16(d + ip + 4);
    }
    if ( t == 0 || n < t + 20 ) {
        Increment(packets_unread);
        return;
    }
    const u_char* h = d + t;
    uint64_t hl = (h[12] >> 4) * 4;
    if ( hl < 20 || hl > ip_payload )
        return;
    f.ts_us = current_ts_us();
    f.sport = be16(h);
    uint16_t dport = be16(h + 2);
    f.seq = be32(h + 4);
    f.ack = be32(h + 8);
    f.flags = h[13];
    f.win = be16(h + 14);
    f.len = ip_payload - hl;
    if ( hl > 20 && n > t + 20 )
        f.options = script_options(h + 20, std::min<size_t>(hl, n - t) - 20);

    Endpoints fwd{f.src, f.sport, dst, dport};
    static auto conn_id_type = zeek::id::find_type<zeek::RecordType>("conn_id");
    auto key = zeek::make_intrusive<zeek::RecordVal>(conn_id_type);
    key->Assign(0, zeek::make_intrusive<zeek::AddrVal>(f.src));
    key->Assign(1, zeek::val_mgr->Port(f.sport, TRANSPORT_TCP));
    key->Assign(2, zeek::make_intrusive<zeek::AddrVal>(dst));
    key->Assign(3, zeek::val_mgr->Port(dport, TRANSPORT_TCP));
    key->Assign(4, uint64_t(IPPROTO_TCP_NUMBER));
    zeek::Connection* conn = zeek::session_mgr->FindConnection(key.get());
    auto known = conn ? states.find(conn) : states.end();
    if ( known != states.end() ) {
        ConnState& s = *known->second;
        if ( ! Admit(s, conn, f) )
            return;
        Log(s.reversed ? s.reversed_names : names_of(conn), s.community_id, f, &s);
        return;
    }
    // A flow Zeek has not seen yet (it lost the SYN, say): the originator as critpath's pcap
    // reader picks it, the SYN's sender, the SYN/ACK's receiver, else the client of the service port.
    bool sender_is_originator = (f.flags & SYN) ? ! (f.flags & ACK)
                                                : ! ((f.sport < 1024 && dport >= 1024) ||
                                                     (f.sport < dport && dport >= 32768));
    Endpoints id = sender_is_originator ? fwd : reversed(fwd);
    auto community_id = CommunityId(id);
    if ( ! Watched(id) || ! Sampled(*community_id) )
        return;
    Log(id, community_id, f, nullptr);
}

} // namespace critpath
