#pragma once
// An FMU archive (a zip) unpacked with libzip into a private temporary
// directory that is removed when the last owner goes (FMI 2.0 §2.3). Entries
// that would escape the directory — absolute paths, "..", symbolic links,
// anything but plain files and directories — are refused, so a hostile archive
// cannot write outside it. The directory's name carries the process id
// (abandoned_archives.hpp), so one left by a killed process is removed later.
#include <filesystem>
#include <string>
#include <string_view>

namespace couplet::models::fmi {

class Archive {
 public:
  /// Unpacks `fmu_path`. Throws ConfigurationError "KIND 'PATH': why" when the
  /// file is missing, not a zip, has an escaping or non-regular entry, is
  /// unreasonably large (more than 1 GiB unpacked or 100 000 entries), or when
  /// the temporary directory cannot be made. `kind` names the archive in
  /// messages: "FMU", or "SSP" for a system structure package (the same zip rules).
  static Archive unpack(const std::string& fmu_path, std::string_view kind = "FMU");

  Archive(Archive&& other) noexcept;
  Archive& operator=(Archive&& other) noexcept;
  Archive(const Archive&) = delete;
  Archive& operator=(const Archive&) = delete;
  ~Archive();  ///< removes the directory

  const std::string& fmu_path() const { return fmu_path_; }
  const std::filesystem::path& directory() const { return directory_; }

  /// The text of modelDescription.xml. Throws ConfigurationError when the
  /// archive's root has none or it is larger than 64 MiB.
  std::string model_description() const;
  /// "FMU 'PATH' modelDescription.xml": how messages name it.
  std::string model_description_name() const;

 private:
  Archive(std::string fmu_path, std::filesystem::path directory);
  std::string fmu_path_;
  std::filesystem::path directory_;
};

}  // namespace couplet::models::fmi
