#!/usr/bin/env bash
# Formats the C++ sources with clang-format (the style is .clang-format at the top of the tree).
#
#   scripts/format.sh           rewrites every file that is not formatted
#   scripts/format.sh --check   lists the files that are not formatted and exits 1 if there is one
#                               (a test of the suite: tests/CMakeLists.txt, clang_format_check)
#
# The files: the .cpp, .hpp and .c files under lib/, tools/, tests/ and bench/, and the
# hand-written public header include/dnncompat/dnncompat.h; include/dnncompat/cudnn.h and the
# generated tables (.inc) are left as their generators write them. CLANG_FORMAT names the binary (default clang-format,
# Debian 12's clang-format 14).
set -euo pipefail
cd "$(dirname "$0")/.."
cf=${CLANG_FORMAT:-clang-format}
command -v "$cf" >/dev/null || { echo "format: $cf not found (scripts/setup.sh installs it)" >&2; exit 2; }
mapfile -t files < <({ find lib tools tests bench -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.c' \) \
                         -not -path 'tests/data/*'; echo include/dnncompat/dnncompat.h; } | sort)
if [ "${1:-}" = --check ]; then
  bad=()
  for f in "${files[@]}"; do
    "$cf" --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
  done
  if [ ${#bad[@]} -gt 0 ]; then
    echo "format: ${#bad[@]} of ${#files[@]} files are not formatted as .clang-format says (scripts/format.sh fixes them):"
    printf '  %s\n' "${bad[@]}"
    exit 1
  fi
  echo "format: ${#files[@]} files formatted"
else
  "$cf" -i "${files[@]}"
fi
