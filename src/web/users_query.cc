// See users_query.h.
#include "web/users_query.h"

#include <charconv>

#include <fmt/format.h>

#include "web/http_request.h"

namespace pacer::web {

namespace {

constexpr const char* kForm = "users: give a whole number >= 0 (POST /users?users=N[&types=A,B]) or a count per type "
                              "(POST /users?users=A:10,B:40)";

// A whole number of users, 0 to 1e9.
bool whole(std::string_view text, int& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size() && out >= 0 && out <= 1'000'000'000;
}

// Calls each(item) for every comma-separated item; false when one is empty.
template <typename Each>
bool for_each_item(std::string_view list, Each&& each) {
  while (true) {
    const std::size_t comma = list.find(',');
    const std::string_view item = list.substr(0, comma);
    if (item.empty() || !each(item)) return false;
    if (comma == std::string_view::npos) return true;
    list.remove_prefix(comma + 1);
  }
}

}  // namespace

Result<scenario::MixRequest> parse_users_query(std::string_view query) {
  const std::string_view users = query_param(query, "users");
  const std::string_view types = query_param(query, "types");
  scenario::MixRequest mix;
  if (users.find(':') != std::string_view::npos) {
    if (!types.empty()) return bad_argument("users: give a count per type (users=A:10,B:40) or types, not both");
    long long sum = 0;
    const bool ok = for_each_item(users, [&](std::string_view item) {
      const std::size_t colon = item.find(':');
      int n = 0;
      if (colon == 0 || colon == std::string_view::npos || !whole(item.substr(colon + 1), n)) return false;
      mix.counts.emplace_back(std::string(item.substr(0, colon)), n);
      sum += n;
      return true;
    });
    if (!ok || sum > 1'000'000'000) return bad_argument(kForm);
    mix.users = static_cast<int>(sum);
    return mix;
  }
  if (!whole(users, mix.users)) return bad_argument(kForm);
  if (types.data() != nullptr) {  // types= given (an empty list is a mistake)
    const bool ok = for_each_item(types, [&](std::string_view name) {
      mix.types.emplace_back(name);
      return true;
    });
    if (!ok) return bad_argument("types: give the user types' names, comma-separated (types=A,B)");
  }
  return mix;
}

}  // namespace pacer::web
