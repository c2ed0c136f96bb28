// llama-server's command line through llama.cpp's own parser (ServerArgs): what each flag means
// to Shoehorn's plan and HTTP side, what is refused and why, and --models-preset's presets.
#include "serverargs.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace shoehorn;

namespace {

Result<ServerArgs> parse(const QString &line)
{
    std::vector<std::string> args;
    for (const QString &a : line.split(QLatin1Char(' '), Qt::SkipEmptyParts))
        args.push_back(a == "''" ? std::string() : a.toStdString()); // '' : an empty argument
    return ServerArgs::parse(args);
}

// One field of the parsed line, as text (so that one table covers them all).
QString field(const ServerArgs &a, const QString &name)
{
    const ContextSettings c = a.context();
    const LoadSettings l = a.load();
    const ApiServerOptions h = a.http();
    const SamplingSettings s = a.sampling();
    const std::map<QString, QString> fields{
        {"model", QString::fromStdString(a.modelPath())},
        {"alias", QString::fromStdString(a.alias())},
        {"ctx", QString::number(c.contextSize)},
        {"ctxGiven", a.contextGiven() ? "yes" : "no"},
        {"batch", QString("%1/%2").arg(c.batchSize).arg(c.ubatchSize)},
        {"kv", QString::fromStdString(c.typeK + "/" + c.typeV)},
        {"kvGiven", a.cacheTypesGiven() ? "yes" : "no"},
        {"fa", c.flashAttention == FlashAttention::On ? "on" : c.flashAttention == FlashAttention::Off ? "off" : "auto"},
        {"ngl", QString::number(l.gpuLayers)},
        {"nglGiven", a.gpuLayersGiven() ? "yes" : "no"},
        {"cpuMoe", QString::number(l.cpuMoeLayers)},
        {"parallel", QString::number(a.parallel())},
        {"fit", a.fit().on ? QString("on %1").arg(a.fit().marginMiB) : "off"},
        {"host", QString::fromStdString(h.host + ":" + std::to_string(h.port))},
        {"keys", QString::number(h.apiKeys.size())},
        {"cors", QString::fromStdString(h.corsOrigins)},
        {"metrics", h.metrics ? "on" : "off"},
        {"webUi", a.webUi() ? "on" : "off"},
        {"temp", QString::number(double(s.temperature))},
        {"topK", QString::number(s.topK)},
        {"topP", QString::number(double(s.topP))},
        {"seed", QString::number(s.seed)},
        {"n", QString::number(a.maxTokens())},
        {"preset", QString::fromStdString(a.modelsPreset())},
        {"spec", QString::fromStdString(c.speculation.types + " " + c.speculation.draftModel + " " +
                                        std::to_string(c.speculation.draftMax) + " " +
                                        std::to_string(c.speculation.ngramSizeN))},
        {"mtpLayers", l.mtpLayers ? "yes" : "no"},
        {"devices", QString::fromStdString(deviceListText(l.devices))},
    };
    const auto it = fields.find(name);
    return it == fields.end() ? QString("no field " + name) : it->second;
}

} // namespace

class TestServerArgs : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    QString file(const char *name, const QByteArray &content)
    {
        QFile f(m_dir.filePath(name));
        if (f.open(QIODevice::WriteOnly))
            f.write(content);
        return f.fileName();
    }
private slots:
    void flags_data();
    void flags();
    void refused_data();
    void refused();
    void presetsCascadeAndFindModelsBesideTheFile();
};

void TestServerArgs::flags_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("value");
    auto row = [](const char *name, const char *line, const char *f, const char *v) {
        QTest::newRow(name) << QString(line) << QString(f) << QString(v);
    };
    row("-m", "-m /m/a.gguf", "model", "/m/a.gguf");
    row("--alias", "-m a.gguf --alias NAME", "alias", "NAME");
    row("no alias", "-m a.gguf", "alias", "");
    row("-c", "-m a.gguf -c 102400", "ctx", "102400");
    row("-c given", "-m a.gguf -c 2048", "ctxGiven", "yes");
    row("-c not given", "-m a.gguf", "ctxGiven", "no");
    row("-ctk -ctv", "-m a.gguf -ctk q8_0 -ctv q8_0", "kv", "q8_0/q8_0");
    row("KV given", "-m a.gguf -ctk q8_0", "kvGiven", "yes");
    row("KV default", "-m a.gguf", "kv", "f16/f16");
    row("-fa on", "-m a.gguf -fa on", "fa", "on");
    row("-fa default", "-m a.gguf", "fa", "auto");
    row("-ngl", "-m a.gguf -ngl 20", "ngl", "20");
    row("-ngl given", "-m a.gguf -ngl 20", "nglGiven", "yes");
    row("-ngl not given", "-m a.gguf", "nglGiven", "no");
    row("--n-cpu-moe", "-m a.gguf --n-cpu-moe 26", "cpuMoe", "26");
    row("-np", "-m a.gguf -np 2", "parallel", "2");
    row("-np auto is 4", "-m a.gguf", "parallel", "4");
    row("-fit default on, 1024 MiB", "-m a.gguf", "fit", "on 1024");
    row("-fitt", "-m a.gguf -fit on -fitt 768", "fit", "on 768");
    row("-fit off", "-m a.gguf -fit off", "fit", "off");
    row("host and port", "-m a.gguf --host 0.0.0.0 --port 9000", "host", "0.0.0.0:9000");
    row("default host", "-m a.gguf", "host", "127.0.0.1:8080");
    row("two keys", "-m a.gguf --api-key k1,k2", "keys", "2");
    // Taken, as llama-server takes them (a review of the checks above): -ub 0 is "as -b", one slot
    // needs a batch of one.
    row("-ub 0 is as -b", "-m a.gguf -ub 0", "batch", "2048/2048");
    row("-b 8 -ub 0", "-m a.gguf -b 8 -ub 0", "batch", "8/8");
    row("batch default", "-m a.gguf", "batch", "2048/512");
    row("one slot, a batch of one", "-m a.gguf -np 1 -b 1", "parallel", "1");
    row("no key", "-m a.gguf", "keys", "0");
    row("cors default: localhost, not *", "-m a.gguf", "cors", "localhost");
    row("--cors-origins", "-m a.gguf --cors-origins https://a.example", "cors", "https://a.example");
    row("--metrics", "-m a.gguf --metrics", "metrics", "on");
    row("--no-ui", "-m a.gguf --no-ui", "webUi", "off");
    row("ui default", "-m a.gguf", "webUi", "on");
    row("--temp", "-m a.gguf --temp 1.0", "temp", "1");
    row("--top-k", "-m a.gguf --top-k 20", "topK", "20");
    row("--top-p", "-m a.gguf --top-p 0.95", "topP", "0.95");
    row("--seed", "-m a.gguf --seed 7", "seed", "7");
    row("-n", "-m a.gguf -n 64", "n", "64");
    row("--models-preset", "--models-preset f.ini", "preset", "f.ini");
    row("--cache-ram 0 is taken", "-m a.gguf --cache-ram 0", "model", "a.gguf");
    // Speculative decoding (#29): llama-server's flags, its defaults where none is given.
    row("no speculation", "-m a.gguf", "spec", "none  3 12");
    row("--spec-type", "-m a.gguf --spec-type ngram-simple --spec-ngram-simple-size-n 2", "spec", "ngram-simple  3 2");
    row("two types", "-m a.gguf --spec-type ngram-mod,draft-mtp", "spec", "ngram-mod,draft-mtp  3 12");
    row("-md", "-m a.gguf -md d.gguf --spec-draft-n-max 8", "spec", "none d.gguf 8 12");
    row("draft-mtp loads the MTP layers", "-m a.gguf --spec-type draft-mtp", "mtpLayers", "yes");
    row("no MTP layers otherwise", "-m a.gguf --spec-type ngram-mod", "mtpLayers", "no");
    // --device: llama.cpp's choice without it; none keeps every layer off the GPUs (a real
    // device's name on lavapipe: tests/engine/backends.sh).
    row("no --device", "-m a.gguf", "devices", "");
    row("--device none", "-m a.gguf --device none", "devices", "none");
    row("-dev none", "-m a.gguf -dev none", "devices", "none");
}

void TestServerArgs::flags()
{
    QFETCH(QString, line);
    QFETCH(QString, field);
    QFETCH(QString, value);
    auto a = parse(line);
    QVERIFY2(a.ok(), a ? "" : a.error().detail.c_str());
    QCOMPARE(::field(*a, field), value);
}

void TestServerArgs::refused_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("message");
    auto row = [](const char *name, const char *line, const char *m) { QTest::newRow(name) << QString(line) << QString(m); };
    // llama.cpp's own messages for what llama-server refuses too.
    row("unknown flag", "-m a.gguf --no-such-flag", "invalid argument: --no-such-flag");
    // ... and where its words were "stoi" (an audit, 2026-12-04): the flag and the value.
    row("bad value", "-m a.gguf -c lots", "-c lots: not a number (a whole number is wanted)");
    row("bad number", "-m a.gguf -ngl abc", "-ngl abc: not a number");
    row("number too large", "-m a.gguf --port 99999999999", "--port 99999999999: out of range");
    row("bad float", "-m a.gguf --temp warm", "--temp warm: not a number");
    row("bad KV type", "-m a.gguf -ctk q9", "-ctk");
    // What Shoehorn does not take, named.
    row("-hf", "-hf someone/model", "-hf/-mu: Shoehorn does not download models");
    row("--lora", "-m a.gguf --lora x.gguf", "--lora: LoRA adapters are not supported");
    row("--embedding", "-m a.gguf --embedding", "--embedding/--rerank");
    row("--path", "-m a.gguf --path /srv/www", "--path: the web UI is built in");
    row("-ot", "-m a.gguf -ot exps=CPU", "Shoehorn places tensors itself");
    // Accepted by the parser and then ignored, before (#30): now named.
    row("--sleep-idle-seconds", "-m a.gguf --sleep-idle-seconds 300", "--sleep-idle-seconds: Shoehorn keeps the model loaded");
    row("--ui-mcp-proxy", "-m a.gguf --ui-mcp-proxy", "--ui-mcp-proxy: the web UI's MCP proxy is not served");
    // Found by llama.cpp's own server suite (tools/server-suite.sh): accepted and then ignored.
    row("--tools", "-m a.gguf --tools all", "--tools: the server's built-in tools");
    row("--mcp-servers-json", "-m a.gguf --mcp-servers-json {}", "MCP servers (programs the server starts");
    row("--mcp-servers-config", "-m a.gguf --mcp-servers-config mcp.json", "--mcp-servers-config/--mcp-servers-json:");
    row("--cache-ram 100", "-m a.gguf --cache-ram 100", "--cache-ram: the host-RAM prompt cache is not kept");
    row("-cram -1", "-m a.gguf -cram -1", "only --cache-ram 0 is taken");
    // Values llama.cpp takes that cannot work (an audit, 2026-12-04): -b below the slots aborted
    // in llama_context, a key file without a key served with no key at all, a fifo blocked.
    row("-c negative", "-m a.gguf -c -5", "-c -5: give 0 (the model's trained context) or a number of tokens");
    row("-b 0", "-m a.gguf -b 0", "-b 0: the batch must hold at least one token");
    row("-b below the slots", "-m a.gguf -b 2", "-b 2: a batch holds one token of each slot at least, and there are 4 slots");
    row("-ub below the slots", "-m a.gguf -ub 1", "-ub 1: a batch holds one token of each slot at least");
    row("-np above llama.cpp's sequences", "-m a.gguf -np 300", "-np 300: llama.cpp serves at most 256 slots");
    row("-b below -np", "-m a.gguf -np 8 -b 4", "there are 8 slots (--parallel 8): give -b and -ub 8 or more");
    row("--api-key empty", "-m a.gguf --api-key ''", "--api-key: empty");
    const auto keys = [&](const char *name, const char *fileName, const QByteArray &content, const char *m) {
        QTest::newRow(name) << QString("-m a.gguf --api-key-file " + file(fileName, content)) << QString(m);
    };
    keys("key file: empty", "empty", "", "holds no key (one per line; lines starting with # are comments)");
    keys("key file: comments only", "comments", "# one\n#two\n", "holds no key");
    keys("key file: white space", "spaces", "k1\n# c\nkey two\n", ", line 3: a key with white space, a comma or a NUL in it");
    keys("key file: Windows line ends", "crlf", "k1\r\nk2\r\n", ", line 1: ends in a carriage return (a Windows text file?)");
    row("a sign alone", "-m a.gguf -c -", "-c -: not a number");
    row("key file: a folder", "-m a.gguf --api-key-file /tmp", "--api-key-file /tmp: not a regular file (a folder)");
    row("key file: a device", "-m a.gguf --api-key-file /dev/zero", "--api-key-file /dev/zero: not a regular file (a pipe or a device)");
    row("key file: missing", "-m a.gguf --api-key-file /nonexistent/keys", "--api-key-file /nonexistent/keys: no such file");
    row("preset: a device", "--models-preset /dev/zero", "--models-preset /dev/zero: not a regular file");
    row("preset and a model", "-m a.gguf --models-preset p.ini",
        "--models-preset p.ini and the model a.gguf: llama-server would serve the model alone");
}

void TestServerArgs::refused()
{
    QFETCH(QString, line);
    QFETCH(QString, message);
    auto a = parse(line);
    QVERIFY(!a.ok());
    QCOMPARE(a.error().code, ErrorCode::InvalidArgument);
    QVERIFY2(QString::fromStdString(a.error().detail).contains(message), a.error().detail.c_str());
}

// [*] for every model, each section over it, the router's command line over both (as
// llama-server's router builds each model's command line); a relative model path is beside the file.
void TestServerArgs::presetsCascadeAndFindModelsBesideTheFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string ini = dir.filePath("models.ini").toStdString();
    std::ofstream(dir.filePath("second.gguf").toStdString()) << "x";
    std::ofstream(ini) << "version = 1\n[*]\nc = 1024\ntemp = 0.5\n\n[tiny]\nmodel = /abs/tiny.gguf\ntemp = 0.3\n\n"
                          "[second]\nmodel = second.gguf\nctx-size = 512\ntop-k = 7\n";
    auto router = parse(QString("--models-preset %1 -np 2 --top-p 0.9").arg(QString::fromStdString(ini)));
    QVERIFY2(router.ok(), router ? "" : router.error().detail.c_str());
    auto presets = router->presets();
    QVERIFY2(presets.ok(), presets ? "" : presets.error().detail.c_str());
    QCOMPARE(presets->size(), size_t(2));
    std::map<std::string, ServerArgs> byName;
    for (const auto &p : *presets)
        byName.emplace(p.name, p.args);
    QVERIFY(byName.count("tiny") && byName.count("second"));
    const ServerArgs &tiny = byName.at("tiny");
    const ServerArgs &second = byName.at("second");
    QCOMPARE(field(tiny, "model"), QString("/abs/tiny.gguf"));
    QCOMPARE(field(tiny, "ctx"), QString("1024"));   // [*]
    QCOMPARE(field(tiny, "temp"), QString("0.3"));   // its section over [*]
    QCOMPARE(field(tiny, "topP"), QString("0.9"));   // the command line
    QCOMPARE(field(tiny, "parallel"), QString("2")); // the command line
    QCOMPARE(field(tiny, "alias"), QString("tiny")); // the section is its name
    QCOMPARE(field(second, "model"), dir.filePath("second.gguf"));
    QCOMPARE(field(second, "ctx"), QString("512"));
    QCOMPARE(field(second, "temp"), QString("0.5"));
    QCOMPARE(field(second, "topK"), QString("7"));

    // The file named by llama.cpp's environment variable instead: the same two models (the
    // parser reads the variable into each section's line, beside the section's model).
    qputenv("LLAMA_ARG_MODELS_PRESET", QByteArray::fromStdString(ini));
    auto fromEnv = parse("-np 2");
    auto envPresets = fromEnv.ok() ? fromEnv->presets() : Result<std::vector<ServerPreset>>(fromEnv.error());
    qunsetenv("LLAMA_ARG_MODELS_PRESET");
    QVERIFY2(envPresets.ok(), envPresets ? "" : envPresets.error().detail.c_str());
    QCOMPARE(envPresets->size(), size_t(2));

    // A key llama-server does not know: the file and the section are named.
    std::ofstream(ini) << "version = 1\n[broken]\nmodel = /a.gguf\nno-such-flag = 1\n";
    auto bad = router->presets();
    QVERIFY(!bad.ok());
    QVERIFY2(bad.error().detail.find("models.ini") != std::string::npos, bad.error().detail.c_str());
}

QTEST_GUILESS_MAIN(TestServerArgs)
#include "tst_serverargs.moc"
