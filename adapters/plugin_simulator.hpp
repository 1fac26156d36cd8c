// The simulator of type "plugin": a shared library implementing the C interface of
// sao/plugin/sao_plugin.h, loaded with Boost.DLL. Its section:
//   {"type": "plugin", "library": "libsao_absorber_plugin.so",
//    "options": {...},                      (anything: for the plug-in, which reads the section)
//    "gradients": {"method": "forward" | "central" | "provided", "step": 1e-6},
//    "workers": 0}
// "library" with a slash is a path, relative to the study's folder; a bare file name is looked
// for in the study's folder, then in each folder of the environment's SAO_PLUGIN_PATH (colon
// separated), then in the installed plug-ins' folder (LIBDIR/sao beside the program's bin/). A
// library that is missing, cannot be loaded, lacks the entry points or was built for another
// version of the interface is a problem of "simulator.library" naming the path and the versions
// (the study is refused: exit 2).
#pragma once

#include <memory>
#include <string>

#include "sao/seam/simulator.hpp"

namespace sao::adapters {

// The file "library" names (resolved as above), or "" with the reason in `why`.
std::string find_plugin_library(const std::string& library, const std::string& study_directory,
                                std::string& why);

// Registers the factory of type "plugin" with sao::register_simulator (idempotent).
void register_plugin_simulator();

}  // namespace sao::adapters
