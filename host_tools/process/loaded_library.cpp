#include "host_tools/process/loaded_library.hpp"

#include <dlfcn.h>

#include <stdexcept>

namespace couplet::tools {

LoadedLibrary::LoadedLibrary(const char* soname, bool global, const std::string& cannot_load,
                             const std::string& remedy)
    : handle_(::dlopen(soname, RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL))), soname_(soname) {
  if (handle_ == nullptr)
    throw std::runtime_error(cannot_load + ": " + ::dlerror() + " (" + remedy + ")");
}

void* LoadedLibrary::symbol(const char* name) const {
  void* address = ::dlsym(handle_, name);
  if (address == nullptr) {
    throw std::runtime_error(std::string(soname_) + " has no " + name +
                             " (not the version couplet was built with?)");
  }
  return address;
}

}  // namespace couplet::tools
