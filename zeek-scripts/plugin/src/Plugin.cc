#include "Plugin.h"

#include <zeek/Conn.h>

namespace plugin::CritPath_Sensor {

Plugin plugin;

zeek::plugin::Configuration Plugin::Configure() {
    // Each hook returns at once until the package's script starts the sensor.
    EnableHook(zeek::plugin::HOOK_SETUP_ANALYZER_TREE);
    EnableHook(zeek::plugin::HOOK_DRAIN_EVENTS);
    EnableHook(zeek::plugin::HOOK_REPORTER);

    zeek::plugin::Configuration config;
    config.name = "CritPath::Sensor";
    config.description = "critpath sensor, compiled: one packet event per TCP packet without per-packet script work";
    config.version = {1, 0, 0};
    return config;
}

void Plugin::HookSetupAnalyzerTree(zeek::Connection* conn) { sensor.Attach(conn); }

void Plugin::HookDrainEvents() { sensor.Flush(); }

bool Plugin::HookReporter(const std::string& prefix, const zeek::EventHandlerPtr event, const zeek::Connection* conn,
                          const zeek::ValPList* addl, bool location, const zeek::detail::Location* location1,
                          const zeek::detail::Location* location2, bool time, const std::string& message) {
    // Zeek drops such a packet before any connection sees it (the script's net_weird handler)
    if ( prefix == "weird" && message == "truncated_IP_len" )
        sensor.TruncatedIPLen();
    return true;
}

void Plugin::Done() {
    sensor.Finish();
    zeek::plugin::Plugin::Done();
}

} // namespace plugin::CritPath_Sensor
