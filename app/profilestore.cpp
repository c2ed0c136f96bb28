#include "profilestore.h"

#include "appsettings.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

using shoehorn::HardwareProfile;

namespace {
void store(const std::vector<HardwareProfile> &profiles)
{
    QJsonArray list;
    for (const auto &p : profiles)
        list.append(QJsonObject{{"id", QString::fromStdString(p.id)},
                                {"name", QString::fromStdString(p.name)},
                                {"gpu", QString::fromStdString(p.gpuName)},
                                {"vram", qint64(p.vramBytes)},
                                {"ram", qint64(p.ramBytes)},
                                {"cores", p.physicalCores}});
    AppSettings::setCustomProfiles(QJsonDocument(list).toJson(QJsonDocument::Compact));
}
} // namespace

std::vector<HardwareProfile> ProfileStore::customProfiles()
{
    std::vector<HardwareProfile> out;
    const QJsonArray list = QJsonDocument::fromJson(AppSettings::customProfiles()).array();
    for (const auto &v : list) {
        const QJsonObject o = v.toObject();
        HardwareProfile p;
        p.id = o.value("id").toString().toStdString();
        p.name = o.value("name").toString().toStdString();
        p.gpuName = o.value("gpu").toString().toStdString();
        p.vramBytes = quint64(o.value("vram").toInteger());
        p.ramBytes = quint64(o.value("ram").toInteger());
        p.physicalCores = o.value("cores").toInt(4);
        p.builtin = false;
        if (!p.id.empty() && p.ramBytes > 0)
            out.push_back(p);
    }
    return out;
}

std::string ProfileStore::add(HardwareProfile profile)
{
    auto all = customProfiles();
    if (profile.id.empty())
        profile.id = "custom-" + std::to_string(all.size() + 1) + "-" + std::to_string(profile.vramBytes >> 20);
    profile.builtin = false;
    std::erase_if(all, [&](const HardwareProfile &p) { return p.id == profile.id; });
    all.push_back(profile);
    store(all);
    return profile.id;
}

void ProfileStore::remove(const std::string &id)
{
    auto all = customProfiles();
    std::erase_if(all, [&](const HardwareProfile &p) { return p.id == id; });
    store(all);
}
