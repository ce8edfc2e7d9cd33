#pragma once
// A shared library loaded when a command first needs it (dlopen), for what only
// some commands use (MAT export, MPI): couplet does not link it, so no other
// command maps it and its dependencies at start (docs/results.md, "Start-up
// time"). It stays loaded for the process: its objects may outlive any scope
// that would unload it.
#include <string>

namespace couplet::tools {

class LoadedLibrary {
 public:
  /// Loads `soname` with RTLD_NOW (and RTLD_GLOBAL when `global`). Throws
  /// std::runtime_error: `cannot_load`, the loader's reason and `remedy`.
  LoadedLibrary(const char* soname, bool global, const std::string& cannot_load,
                const std::string& remedy);

  /// The address of `name` in the library. Throws std::runtime_error naming
  /// the library and the symbol.
  void* symbol(const char* name) const;

  /// A function of the library, as the type of `function`.
  template <typename Function>
  void resolve(const char* name, Function& function) const {
    function = reinterpret_cast<Function>(symbol(name));
  }

 private:
  void* handle_;
  const char* soname_;
};

}  // namespace couplet::tools
