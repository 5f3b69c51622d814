// The compiled critpath sensor: the package's per-packet work in C++ (see Sensor.h).
#pragma once

#include <zeek/plugin/Plugin.h>

#include "Sensor.h"

namespace plugin::CritPath_Sensor {

class Plugin : public zeek::plugin::Plugin {
public:
    critpath::Sensor sensor;

protected:
    zeek::plugin::Configuration Configure() override;
    void HookSetupAnalyzerTree(zeek::Connection* conn) override;
    void HookDrainEvents() override;
    bool HookReporter(const std::string& prefix, const zeek::EventHandlerPtr event, const zeek::Connection* conn,
                      const zeek::ValPList* addl, bool location, const zeek::detail::Location* location1,
                      const zeek::detail::Location* location2, bool time, const std::string& message) override;
    void Done() override;
};

extern Plugin plugin;

} // namespace plugin::CritPath_Sensor
