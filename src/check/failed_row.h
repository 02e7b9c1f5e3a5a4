// A check row whose case could not run: failed, with `error` as its figure and the exception's message as why.
#pragma once
#include <exception>
#include <string>

#include "result/check_report.h"

namespace mg::check {

inline void mark_failed(CheckRow& row, double error, const std::string& prefix, const std::exception& e) {
  row.passed = false;
  row.error = error;
  row.detail = prefix + e.what();
}

}  // namespace mg::check
