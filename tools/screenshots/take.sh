#!/usr/bin/env bash
# Takes screenshots of the real window under Xvfb, as a person would see it.
#   tools/screenshots/take.sh [build-dir] [out-dir]
# Needs: xvfb, xdotool, xclip, imagemagick (import), fonts-noto-cjk for the zh_CN shot.
set -euo pipefail
build=${1:-build}
out=${2:-screenshots}
mkdir -p "$out"
app="$build/bin/shoehorn"
gen=${GEN:-$build/bin/shoehorn-fixturegen} # GEN: another build's, to shoot an older app
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
"$gen" tiny-qwen3moe "$tmp/tiny-moe.gguf"
# A stored chat with Markdown, a code block and (collapsed) thinking, imported at start.
sed "s#@MODEL@#$tmp/tiny-moe.gguf#" "$(dirname "$0")/demo-chat.json" > "$tmp/demo-chat.json"

shot() { # name lang [model-or-option] [message]
    local name=$1 lang=$2 model=${3:-} message=${4:-}
    local display=":$((90 + RANDOM % 9))"
    Xvfb "$display" -screen 0 1400x860x24 >/dev/null 2>&1 &
    local xvfb=$!
    sleep 1
    # A fresh profile per shot: no remembered window layout, chats or settings.
    DISPLAY=$display SHOEHORN_LANG=$lang XDG_CONFIG_HOME="$tmp/config-$name" XDG_DATA_HOME="$tmp/data-$name" \
        SHOEHORN_INSTANCE_NAME="shot-$$-$name" "$app" $model >/dev/null 2>&1 &
    local pid=$!
    sleep 3
    if [ -n "$message" ]; then
        DISPLAY=$display xdotool search --sync --onlyvisible --name Shoehorn windowactivate --sync 2>/dev/null || true
        DISPLAY=$display xdotool type --delay 20 "$message"
        DISPLAY=$display xdotool key Return
        sleep 3
    fi
    DISPLAY=$display import -window root "$out/$name.png"
    kill $pid 2>/dev/null || true
    wait $pid 2>/dev/null || true
    kill $xvfb 2>/dev/null || true
    wait $xvfb 2>/dev/null || true
    echo "$out/$name.png"
}

# The offload panel before and after loading: the model is in the Models table (seeded as
# recent), a click shows its plan, a double-click loads it.
panel() { # lang
    local lang=$1 display=":$((90 + RANDOM % 9))" cfg="$tmp/config-panel-$1"
    mkdir -p "$cfg/Shoehorn"
    printf '[models]\nrecent=%s\n' "$tmp/tiny-moe.gguf" > "$cfg/Shoehorn/Shoehorn.conf"
    Xvfb "$display" -screen 0 1400x860x24 >/dev/null 2>&1 &
    local xvfb=$!
    sleep 1
    DISPLAY=$display SHOEHORN_LANG=$lang XDG_CONFIG_HOME="$cfg" SHOEHORN_INSTANCE_NAME="shot-$$-$lang" "$app" >/dev/null 2>&1 &
    local pid=$!
    sleep 3
    DISPLAY=$display xdotool mousemove 60 75 click 1
    sleep 2
    DISPLAY=$display import -window root "$out/panel-before-load-$lang.png"
    DISPLAY=$display xdotool mousemove 60 75 click --repeat 2 --delay 80 1
    sleep 3
    DISPLAY=$display import -window root "$out/panel-after-load-$lang.png"
    kill $pid $xvfb 2>/dev/null || true
    wait $pid $xvfb 2>/dev/null || true
    echo "$out/panel-before-load-$lang.png $out/panel-after-load-$lang.png"
}

# Serve > Local API while it serves: started from the dialog (Return is its default button),
# with a request streaming from curl so that a slot shows busy.
api() { # lang
    local lang=$1 display=":$((90 + RANDOM % 9))" cfg="$tmp/config-api-$1" port=$((18700 + RANDOM % 200))
    mkdir -p "$cfg/Shoehorn"
    printf '[api]\nport=%s\ncontextPerSlot=8192\n' "$port" > "$cfg/Shoehorn/Shoehorn.conf"
    Xvfb "$display" -screen 0 1400x860x24 >/dev/null 2>&1 &
    local xvfb=$!
    sleep 1
    DISPLAY=$display SHOEHORN_LANG=$lang XDG_CONFIG_HOME="$cfg" XDG_DATA_HOME="$tmp/data-api-$lang" \
        SHOEHORN_INSTANCE_NAME="shot-$$-api-$lang" "$app" "$tmp/tiny-moe.gguf" >/dev/null 2>&1 &
    local pid=$!
    sleep 4
    DISPLAY=$display xdotool search --sync --onlyvisible --name Shoehorn windowactivate --sync 2>/dev/null || true
    DISPLAY=$display xdotool key alt+s Return
    sleep 2
    DISPLAY=$display xdotool key Return
    sleep 2
    # The key the app made when the API was first turned on.
    curl -s -N "http://127.0.0.1:$port/v1/chat/completions" -H 'Content-Type: application/json' \
        -H "Authorization: Bearer $(cat "$cfg/Shoehorn/Shoehorn/api-key")" \
        -d '{"messages":[{"role":"user","content":"hello"}],"max_tokens":6000,"stream":true,"ignore_eos":true}' \
        >/dev/null 2>&1 &
    local client=$!
    sleep 2.5
    DISPLAY=$display import -window root "$out/local-api-$lang.png"
    kill $client $pid 2>/dev/null || true
    wait $pid 2>/dev/null || true
    kill $xvfb 2>/dev/null || true
    wait $xvfb 2>/dev/null || true
    echo "$out/local-api-$lang.png"
}

# A model that sees images (its mmproj beside it, paired automatically): a picture pasted into
# the message box (through the X clipboard, as a screenshot tool puts it there), then sent.
vision() { # lang
    local lang=$1 display=":$((90 + RANDOM % 9))" dir="$tmp/vision-$1"
    mkdir -p "$dir"
    "$gen" tiny-vision "$dir/tiny-vision.gguf" >/dev/null
    "$gen" mmproj-tiny "$dir/mmproj-tiny-vision-F16.gguf" >/dev/null
    convert -size 360x220 gradient:orange-purple -fill white -draw 'circle 180,110 180,50' \
        -fill navy -draw 'rectangle 30,150 120,200' "$dir/picture.png"
    Xvfb "$display" -screen 0 1400x860x24 >/dev/null 2>&1 &
    local xvfb=$!
    sleep 1
    DISPLAY=$display SHOEHORN_LANG=$lang XDG_CONFIG_HOME="$tmp/config-vision-$lang" XDG_DATA_HOME="$tmp/data-vision-$lang" \
        SHOEHORN_INSTANCE_NAME="shot-$$-vision-$lang" "$app" "$dir/tiny-vision.gguf" >/dev/null 2>&1 &
    local pid=$!
    sleep 4
    DISPLAY=$display xclip -selection clipboard -t image/png -i "$dir/picture.png" &
    local clip=$!
    sleep 0.5
    DISPLAY=$display xdotool search --sync --onlyvisible --name Shoehorn windowactivate --sync 2>/dev/null || true
    DISPLAY=$display xdotool key ctrl+v
    DISPLAY=$display xdotool type --delay 20 "What is in this picture?"
    sleep 1
    DISPLAY=$display import -window root "$out/vision-attached-$lang.png"
    DISPLAY=$display xdotool key Return
    sleep 3
    # Back to the top of the chat: the question with its thumbnail, and the answer's start.
    DISPLAY=$display xdotool mousemove 700 300 click --repeat 100 --delay 5 4
    sleep 0.5
    DISPLAY=$display import -window root "$out/vision-answer-$lang.png"
    kill $clip $pid 2>/dev/null || true
    wait $pid 2>/dev/null || true
    kill $xvfb 2>/dev/null || true
    wait $xvfb 2>/dev/null || true
    echo "$out/vision-attached-$lang.png $out/vision-answer-$lang.png"
}

# A budget laptop's 1366x768 screen: the window fits it, with the message box, Send/Stop and the
# whole offload panel. A chat answered and stopped (its footer's rate), then a what-if machine
# for the full-size Qwen3-30B-A3B shape: too big as it is, then after Auto-fit.
small() { # lang
    local lang=$1 display=":$((90 + RANDOM % 9))" cfg="$tmp/config-small-$1"
    # Where the second model row, "Plan for" and Auto-fit are (Chinese rows are taller).
    local row=99 planfor=98 autofit=513
    [ "$lang" = zh_CN ] && { row=113; planfor=113; autofit=546; }
    "$gen" qwen3-30b-a3b "$tmp/qwen3-30b-a3b.gguf" >/dev/null
    Xvfb "$display" -screen 0 1366x768x24 >/dev/null 2>&1 &
    local xvfb=$!
    sleep 1
    mkdir -p "$cfg/Shoehorn"
    printf '[models]\nrecent=%s\n' "$tmp/qwen3-30b-a3b.gguf" > "$cfg/Shoehorn/Shoehorn.conf"
    DISPLAY=$display SHOEHORN_LANG=$lang XDG_CONFIG_HOME="$cfg" XDG_DATA_HOME="$tmp/data-small-$lang" \
        SHOEHORN_INSTANCE_NAME="shot-$$-small-$lang" "$app" "$tmp/tiny-moe.gguf" >/dev/null 2>&1 &
    local pid=$!
    sleep 4
    DISPLAY=$display xdotool search --sync --onlyvisible --name Shoehorn windowactivate --sync 2>/dev/null || true
    DISPLAY=$display xdotool type --delay 20 "Tell me a long story"
    DISPLAY=$display xdotool key Return
    sleep 2
    DISPLAY=$display xdotool key Escape
    sleep 1.5
    DISPLAY=$display import -window root "$out/small-chat-$lang.png"
    # The Models list: the 30B shape under the tiny model; plan it for the GTX 1060 profile.
    DISPLAY=$display xdotool mousemove 40 $row click 1
    sleep 2
    DISPLAY=$display xdotool mousemove 1180 $planfor click 1
    sleep 1
    DISPLAY=$display xdotool mousemove 1180 $((planfor + 23)) click 1 # the GTX 1060 profile
    sleep 1.5
    DISPLAY=$display import -window root "$out/small-whatif-$lang.png"
    DISPLAY=$display xdotool mousemove 1078 $autofit click 1
    sleep 1.5
    DISPLAY=$display import -window root "$out/small-whatif-fitted-$lang.png"
    kill $pid $xvfb 2>/dev/null || true
    wait $pid $xvfb 2>/dev/null || true
    echo "$out/small-chat-$lang.png $out/small-whatif-$lang.png $out/small-whatif-fitted-$lang.png"
}

if [ -n "${SHOTS_ONLY:-}" ]; then # SHOTS_ONLY="vision en" take.sh ...: one scene (while working on it)
    $SHOTS_ONLY
    exit 0
fi

shot empty-state en
shot chat-markdown en "--import-chat $tmp/demo-chat.json"
shot chat-markdown-zh zh_CN "--import-chat $tmp/demo-chat.json"
shot chat-moe en "$tmp/tiny-moe.gguf" "Hello! Which experts are you running on the CPU?"
shot chat-zh zh_CN "$tmp/tiny-moe.gguf" "ni hao"
panel en
panel zh_CN
api en
api zh_CN
vision en
vision zh_CN
small en
small zh_CN
