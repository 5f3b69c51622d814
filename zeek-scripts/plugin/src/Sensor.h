// The compiled sensor: the same records as the package's script path (scripts/main.zeek), written
// to the same log stream, without the script's per-packet work (no pkt_hdr or connection records,
// no interpreted handlers; Community ID and sampling once per connection).
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <zeek/IPAddr.h>
#include <zeek/IntrusivePtr.h>
#include <zeek/Val.h>

namespace zeek {
class Connection;
class Packet;
namespace detail {
class ID;
}
} // namespace zeek

namespace critpath {

// A connection's two ends, the way round its events name them.
struct Endpoints {
    zeek::IPAddr orig_h;
    uint16_t orig_p = 0;
    zeek::IPAddr resp_h;
    uint16_t resp_p = 0;
};

// What the sensor decided about a connection on its first packet (the script's critpath_* fields).
struct ConnState {
    bool judged = false;
    bool watched = false;
    uint64_t logged = 0;
    zeek::StringValPtr community_id;
    // Its first packet was a SYN/ACK from Zeek's originator: named the other way round from then on.
    bool reversed = false;
    Endpoints reversed_names;
    // Its Community ID and ends in the output's encoding, for the names it was last logged under.
    std::string names;
    Endpoints names_for;
};

// The TCP options critpath keeps; present_* say which the packet carried.
struct TcpOptions {
    bool has_mss = false, has_wscale = false, sack_ok = false, has_sack = false, has_ts = false;
    uint32_t mss = 0, wscale = 0, tsval = 0, tsecr = 0;
    int sack_len = 0; // SACK edges
    uint32_t sack[10] = {};
};

// One TCP packet's fields, as read while Zeek handles it.
struct PacketFields {
    uint64_t ts_us = 0;
    zeek::IPAddr src;
    uint16_t sport = 0;
    uint8_t flags = 0;
    uint32_t seq = 0, ack = 0;
    uint64_t len = 0;
    uint16_t win = 0;
    uint8_t ttl = 0;
    bool has_ip_id = false;
    uint16_t ip_id = 0;
    TcpOptions options;
};

// The event of one packet as a record of the contract's Avro form (schemas/packet-event.avsc) in
// its single-object encoding: what the sensor writes with CritPath::encoding=AVRO.
namespace avro {
// C3 01, the schema's fingerprint, the sensor's name and role (none when role is not one of the three)
std::string prefix(std::string_view sensor, std::string_view role);
// the Community ID and the ends
std::string names(std::string_view community_id, const Endpoints& id);
// ts_us, then the packet's own fields from is_orig on; capture_index < 0: none
void packet(std::string& out, const std::string& names, uint64_t ts_us, const Endpoints& id, const PacketFields& f,
            int64_t capture_index);
} // namespace avro

// A CritPath::Info record in the sensor's Avro form (for the btests against schemas/vectors).
std::string avro_record(const zeek::RecordVal& info);

class Sensor {
public:
    Sensor();
    ~Sensor();

    // Called by the package's script at zeek_init: looks its options and log stream up once.
    // False where the script is not loaded.
    bool Start();

    // Taps a new TCP connection's packets.
    void Attach(zeek::Connection* conn);

    // A packet of a tapped connection, before Zeek's TCP analysis of it; delivered: that
    // analysis reads its header (so the script path would get its options).
    void Tapped(const std::shared_ptr<ConnState>& state, zeek::Connection* conn, const zeek::Packet& pkt,
                bool delivered);

    // Logs the packets tapped since the last call, as the script logs them when it handles the
    // packet's events: after Zeek has handled the packet (which may turn the connection round).
    void Flush();

    // The current packet is one Zeek discards as longer than on the wire (weird truncated_IP_len).
    void TruncatedIPLen();

    void Forget(const zeek::Connection* conn) { states.erase(conn); }

    // Writes out what is buffered and closes the outputs.
    void Finish();

private:
    struct Pending {
        zeek::IntrusivePtr<zeek::Connection> conn;
        std::shared_ptr<ConnState> state;
        PacketFields fields;
    };

    void Judge(ConnState& state, const Endpoints& zeek_names, bool syn_ack_from_orig) const;
    // Counts the packet against its connection's cap: false when it is not to be logged.
    bool Admit(ConnState& state, const zeek::Connection* conn, const PacketFields& f);
    bool Watched(const Endpoints& id) const;
    bool Sampled(const zeek::StringVal& community_id) const;
    zeek::StringValPtr CommunityId(const Endpoints& id) const;
    void Log(const Endpoints& id, const zeek::StringValPtr& community_id, const PacketFields& f, ConnState* state);
    // The record through Zeek's logging framework, where the sensor cannot write it itself.
    void LogRecord(const Endpoints& id, const zeek::StringValPtr& community_id, const PacketFields& f);
    // Where the sensor writes JSON lines itself: the log file LogAscii would write (JSON, no
    // rotation, no compression) and the Kafka topic zeek-kafka would, where the package ships
    // the stream there. False leaves the records to Zeek's logging.
    bool OpenOutputs();
    // The Community ID and ends in the output's encoding, made once per connection and naming.
    const std::string& Names(ConnState* state, const Endpoints& id, const zeek::StringValPtr& community_id);
    void FormatJson(const Endpoints& id, const zeek::StringValPtr& community_id, const PacketFields& f, ConnState* state);
    void Emit();
    static void Increment(zeek::detail::ID* counter);

    bool started = false;
    bool direct = false;
    // CritPath::encoding, read at start: Avro single-object records instead of JSON lines
    bool avro = false;
    std::string file_name;
    FILE* file = nullptr;
    struct Kafka;
    std::unique_ptr<Kafka> kafka;
    std::string line;
    // What every record starts with (JSON: {"sensor":...,"sensor_role":...,"ts_us":), for the option values it was made from
    std::string prefix;
    const zeek::Val* prefix_name = nullptr;
    const zeek::Val* prefix_role = nullptr;
    std::vector<Pending> pending;
    std::unordered_map<const zeek::Connection*, std::shared_ptr<ConnState>> states;
    uint64_t capture_index = 0;

    // The script's options and counters (read live: they may change at run time).
    zeek::detail::ID* sensor_name = nullptr;
    zeek::detail::ID* role_text = nullptr;
    zeek::detail::ID* watch_networks = nullptr;
    zeek::detail::ID* watch_ports = nullptr;
    zeek::detail::ID* sample_permille = nullptr;
    zeek::detail::ID* max_packets = nullptr;
    zeek::detail::ID* seed = nullptr;
    zeek::detail::ID* packets_over_cap = nullptr;
    zeek::detail::ID* packets_unread = nullptr;

    zeek::EnumValPtr stream;
    zeek::RecordTypePtr info;
    zeek::VectorTypePtr sack_type;
    int f_sensor, f_role, f_ts, f_cid, f_orig_h, f_orig_p, f_resp_h, f_resp_p, f_is_orig, f_flags, f_seq, f_ack,
        f_len, f_win, f_wscale, f_mss, f_sack_ok, f_sack, f_tsval, f_tsecr, f_ip_id, f_ttl, f_capture_index;
};

} // namespace critpath
