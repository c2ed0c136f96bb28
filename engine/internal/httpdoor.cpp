#include "httpdoor.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>

namespace shoehorn::internal {

namespace {

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

std::string trim(const std::string &s)
{
    const auto b = s.find_first_not_of(" \t");
    if (b == std::string::npos)
        return {};
    return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// The port of an authority ("host:port", "[v6]:port"); `fallback` when it names none.
std::string portOf(const std::string &authority, const std::string &fallback)
{
    size_t colon = std::string::npos;
    if (!authority.empty() && authority.front() == '[') {
        const auto close = authority.find(']');
        if (close != std::string::npos && close + 1 < authority.size() && authority[close + 1] == ':')
            colon = close + 1;
    } else if (std::count(authority.begin(), authority.end(), ':') == 1) {
        colon = authority.find(':');
    }
    if (colon == std::string::npos || colon + 1 >= authority.size())
        return fallback;
    return authority.substr(colon + 1);
}

struct Origin {
    std::string scheme;
    std::string authority;
};

// "https://app.example:3000" -> {"https", "app.example:3000"}; "null" and anything with a path
// or without a scheme -> empty (no origin can match it but one listed as such).
Origin parseOrigin(const std::string &origin)
{
    const auto sep = origin.find("://");
    if (sep == std::string::npos || sep == 0)
        return {};
    Origin o{lower(origin.substr(0, sep)), lower(origin.substr(sep + 3))};
    if (!o.authority.empty() && o.authority.back() == '/')
        o.authority.pop_back();
    if (o.authority.empty() || o.authority.find('/') != std::string::npos)
        return {};
    return o;
}

std::vector<std::string> splitList(const std::string &list)
{
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= list.size()) {
        const auto comma = list.find(',', start);
        const std::string item = trim(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (!item.empty())
            out.push_back(item);
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return out;
}

} // namespace

std::string hostOf(const std::string &authority)
{
    std::string a = lower(trim(authority));
    if (a.empty())
        return {};
    std::string host;
    if (a.front() == '[') {
        const auto close = a.find(']');
        if (close == std::string::npos)
            return {};
        host = a.substr(1, close - 1);
    } else if (std::count(a.begin(), a.end(), ':') > 1) {
        host = a; // a bare IPv6 address
    } else {
        host = a.substr(0, a.find(':'));
    }
    if (!host.empty() && host.back() == '.')
        host.pop_back(); // "localhost." is "localhost"
    return host;
}

bool isLoopbackName(const std::string &host)
{
    if (host == "localhost" || host == "::1")
        return true;
    in_addr a{};
    if (inet_pton(AF_INET, host.c_str(), &a) == 1)
        return (ntohl(a.s_addr) >> 24) == 127;
    in6_addr a6{};
    return inet_pton(AF_INET6, host.c_str(), &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
}

std::vector<std::string> allowedHostsFor(const std::string &boundHost)
{
    const std::string bound = hostOf(boundHost);
    if (!isLoopbackName(bound))
        return {};
    std::vector<std::string> hosts{"localhost", "127.0.0.1", "::1"};
    if (std::find(hosts.begin(), hosts.end(), bound) == hosts.end())
        hosts.push_back(bound);
    return hosts;
}

bool hostAllowed(const std::string &hostHeader, const std::vector<std::string> &allowed)
{
    if (allowed.empty() || trim(hostHeader).empty())
        return true;
    const std::string host = hostOf(hostHeader);
    return std::find(allowed.begin(), allowed.end(), host) != allowed.end();
}

CorsVerdict corsFor(const std::string &origin, const std::string &hostHeader, const std::string &origins,
                    bool credentials)
{
    if (origin.empty())
        return {};
    const std::vector<std::string> list = splitList(origins);
    if (std::find(list.begin(), list.end(), "*") != list.end())
        return {true, credentials ? origin : std::string("*")}; // llama-server's default
    const Origin o = parseOrigin(origin);
    if (!o.authority.empty() && !hostHeader.empty()) {
        // A Host without a port has the default of the scheme the client used, which only the
        // Origin says (https behind a TLS proxy: 443).
        const std::string fallback = o.scheme == "https" ? "443" : "80";
        if (hostOf(o.authority) == hostOf(hostHeader) && portOf(o.authority, fallback) == portOf(lower(hostHeader), fallback))
            return {true, origin}; // this server's own page (the web UI)
    }
    for (const std::string &entry : list) {
        if (lower(entry) == "localhost") {
            if (!o.authority.empty() && isLoopbackName(hostOf(o.authority)))
                return {true, origin};
            continue;
        }
        std::string e = lower(entry);
        if (!e.empty() && e.back() == '/')
            e.pop_back();
        if (e == lower(origin))
            return {true, origin};
    }
    return {false, {}};
}

bool keyMatches(const std::vector<std::string> &keys, const std::string &given)
{
    // Every key is compared over its whole length and the given one's: how long the comparison
    // takes says nothing about how many characters were right.
    bool any = false;
    for (const std::string &key : keys) {
        const size_t n = std::max(key.size(), given.size());
        unsigned diff = key.size() == given.size() ? 0u : 1u;
        for (size_t i = 0; i < n; ++i) {
            const unsigned char a = i < key.size() ? static_cast<unsigned char>(key[i]) : 0;
            const unsigned char b = i < given.size() ? static_cast<unsigned char>(given[i]) : 0;
            diff |= unsigned(a ^ b);
        }
        any = any | (diff == 0 && !key.empty());
    }
    return any;
}

std::string hostRefusal(const std::string &hostHeader)
{
    return "this server answers only to localhost, 127.0.0.1 and ::1, and the request named \"" + hostHeader +
           "\" (a web page whose name points at this machine: DNS rebinding). Bind to another address (--host) "
           "to be reached by other names";
}

std::string originRefusal(const std::string &origin, const std::string &origins)
{
    return "web pages at " + origin + " may not use this server: it allows " +
           (origins == "localhost" ? std::string("pages served from this machine (localhost)") : "the origins " + origins) +
           ". Add the origin with --cors-origins (or in Shoehorn's Local API window)";
}

} // namespace shoehorn::internal
