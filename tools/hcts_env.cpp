// hcts-env (`hcts env`): every environment variable the suite's components read, one table
// per component (hcts/settings.h), with its value in this environment or its default, its
// type, what is allowed and one line of doc, as `ucx_info -c` lists UCX's. The tables are
// constant data linked in: nothing is loaded or initialised to list them.
#include <hcts/settings.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "hcts_env_tables.h"

namespace {

namespace hs = hcts::settings;

void usage(std::FILE *to)
{
    std::fprintf(to, "usage: hcts-env [--brief] [--set] [--component NAME]\n\n"
                     "Lists every environment variable in the settings tables of hcts' components, per\n"
                     "component: NAME=value, where value is this environment's (marked 'set') or the default, with\n"
                     "the variable's type, allowed values, default and one line of doc. A set value that is not\n"
                     "allowed is flagged (NOT ALLOWED) with why; what the component does with it (warn and use\n"
                     "the default, refuse) is in the component's README.\n\n"
                     "  --brief           NAME=value lines only\n"
                     "  --set             only the variables set in this environment\n"
                     "  --component NAME  only this component's table (");
    bool first = true;
    for (const hs::Table *t : hcts_env::tables()) {
        std::fprintf(to, "%s%s", first ? "" : ", ", t->component);
        first = false;
    }
    std::fprintf(to, ")\n\nExit status: 0 listed, 1 some set value is not allowed, 2 bad usage.\n");
}

} // namespace

int main(int argc, char **argv)
{
    bool brief = false, only_set = false;
    std::string component;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a == "--help" || a == "-h") {
            usage(stdout);
            return 0;
        }
        if (a == "--version") {
            std::printf("hcts-env %s\n", HCTS_SUITE_VERSION);
            return 0;
        }
        if (a == "--brief" || a == "-b") {
            brief = true;
        } else if (a == "--set") {
            only_set = true;
        } else if (a == "--component" && i + 1 < argc) {
            component = argv[++i];
        } else {
            std::fprintf(stderr, "hcts-env: unknown argument '%s' (hcts-env --help)\n", argv[i]);
            return 2;
        }
    }
    bool known = component.empty();
    for (const hs::Table *t : hcts_env::tables())
        known = known || component == t->component;
    if (!known) {
        std::fprintf(stderr, "hcts-env: no component '%s' (hcts-env --help lists them)\n", component.c_str());
        return 2;
    }

    int status = 0;
    for (const hs::Table *t : hcts_env::tables()) {
        if (!component.empty() && component != t->component)
            continue;
        if (!brief)
            std::printf("#\n# %s: %s\n#\n", t->component, t->reads);
        for (const hs::Setting *s : t->settings) {
            const auto text = hs::raw(*s);
            if (only_set && !text)
                continue;
            const std::string def = s->default_value();
            const bool bad = text && !hs::valid(*s, *text);
            status = bad ? 1 : status;
            if (!brief) {
                std::printf("# %s\n", s->doc);
                std::printf("# %s: %s; default %s\n", hs::type_name(s->type), hs::describe_allowed(*s).c_str(),
                            def.empty() ? "none" : def.c_str());
                if (bad)
                    std::printf("# NOT ALLOWED: %s\n", hs::bad_value(*s, *text).c_str());
            }
            std::printf("%s=%s%s\n", s->name, text ? std::string(*text).c_str() : def.c_str(),
                        brief || !text ? "" : "  # set");
            if (!brief)
                std::printf("\n");
        }
    }
    return status;
}
