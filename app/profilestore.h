#pragma once

#include "hardware.h"

#include <vector>

// The user's own what-if machines, kept in QSettings next to the built-in profiles.
class ProfileStore
{
public:
    static std::vector<shoehorn::HardwareProfile> customProfiles();
    // Adds or replaces (same id) a custom profile; returns its id.
    static std::string add(shoehorn::HardwareProfile profile);
    static void remove(const std::string &id);
};
