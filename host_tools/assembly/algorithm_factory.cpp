#include "host_tools/assembly/algorithm_factory.hpp"

#include "couplet/errors.hpp"
#include "runtime/algorithms/gauss_seidel.hpp"
#include "runtime/algorithms/ifosmondi.hpp"
#include "runtime/algorithms/jacobi.hpp"

namespace couplet::tools {

namespace {

// One overload per alternative: the compiler refuses a variant alternative
// without its algorithm.
std::unique_ptr<Jacobi> build(const JacobiSettings& settings) {
  return std::make_unique<Jacobi>(settings.fixed_step);
}
std::unique_ptr<GaussSeidel> build(const GaussSeidelSettings& settings) {
  return std::make_unique<GaussSeidel>(settings.fixed_step);
}
std::unique_ptr<DefectControlledJacobi> build(const DefectControlSettings& settings) {
  return std::make_unique<DefectControlledJacobi>(settings);
}
std::unique_ptr<F3ornits> build(const F3ornitsSettings& settings) {
  return std::make_unique<F3ornits>(settings);
}
std::unique_ptr<Ifosmondi> build(const PlainIfosmondiSettings& settings) {
  return std::make_unique<Ifosmondi>(settings.coupling);
}
std::unique_ptr<IfosmondiJfm> build(const IfosmondiJfmSettings& settings) {
  return std::make_unique<IfosmondiJfm>(settings);
}
std::unique_ptr<IfosmondiNgmres> build(const IfosmondiNgmresSettings& settings) {
  return std::make_unique<IfosmondiNgmres>(settings.coupling, settings.ngmres);
}
std::unique_ptr<Missiles> build(const MissilesSettings& settings) {
  return std::make_unique<Missiles>(settings);
}
std::unique_ptr<SemiImplicit> build(const SemiImplicitSettings& settings) {
  return std::make_unique<SemiImplicit>(settings);
}

template <class Base, class Choice>
std::unique_ptr<Base> build_located(const Choice& choice, const std::string& where) {
  try {
    return std::visit([](const auto& settings) -> std::unique_ptr<Base> { return build(settings); },
                      choice);
  } catch (const ConfigurationError& error) {
    throw ConfigurationError(where + error.what());
  }
}

}  // namespace

std::unique_ptr<Algorithm> make_algorithm(const AlgorithmSettings& settings) {
  return build_located<Algorithm>(settings.choice, settings.where);
}

std::unique_ptr<IfosmondiAlgorithm> make_group_algorithm(const GroupAlgorithmSettings& settings) {
  return build_located<IfosmondiAlgorithm>(settings.choice, settings.where);
}

}  // namespace couplet::tools
