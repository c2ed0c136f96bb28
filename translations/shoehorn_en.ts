<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
  <context>
    <name>ApiController</name>
    <message>
      <source>other computers that reach %1 can use the API (with the key)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>every web site you visit may send requests to the API from your browser</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>no key: every program on this computer can use the API</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>ApiDialog</name>
    <message>
      <source>Local API</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Other programs (editor plugins, scripts, web front ends) can use the loaded model through the OpenAI-compatible API of llama.cpp's server. The model is not loaded again: the chat and the API share it.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Settings</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>127.0.0.1: only this computer. 0.0.0.0: every network this computer is on (needs an API key).</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Host:</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Port:</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Show</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Copy</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>New Key</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>API key:</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Parallel requests:</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Prometheus metrics at /metrics</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Serving</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Slot</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>State</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Tokens</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Tokens/s</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Last errors:</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Examples (they work as pasted while the API is on)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Copy Example</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Stop API</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Start API</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Off.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Starting…</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Stopping…</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>On: serving the loaded model.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Load a model first: the API serves the model the chat uses.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Use Port %1</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>busy</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>idle</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Start the API to get examples with its address and key.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>made when the API starts</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>No key: any program on this computer may use the API (127.0.0.1 only)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Web pages of other sites your browser may let use the API (llama-server's --cors-origins). localhost: pages served from this computer. Add origins such as https://app.example:3000, separated by commas. * lets every web site you visit use it. The API's own web chat is always allowed.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Web pages allowed:</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Requests answered at the same time (llama-server's --parallel), decoded in one batch with the chat. Part of the model's context: a change applies when a model is loaded next.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The chat and these requests are slots of one llama.cpp context with one KV cache (llama.cpp's unified cache): each uses what the others leave free, up to the context set in the Offload panel. So the memory the plan shows is the same with the API on or off, and turning it on loads nothing.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Context:</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>%1 can be reached from other computers: it needs an API key (untick No key).</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Requests: %1, of them refused: %2 (no or a wrong key, or a page of another site)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Requests: %1</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Open wider than this computer: %1.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Web chat in your browser: &lt;a href="%1"&gt;%1&lt;/a&gt;</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Web chat: not built into this Shoehorn (%1).</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Shared with the chat: the Offload panel's context and KV cache. Turning the API on loads nothing and takes no more memory.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Paused while auto-tune measures the model: requests get 503 with Retry-After until it ends.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Enter the address to listen on: 127.0.0.1 for this computer only, 0.0.0.0 for every network.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>%1 is not an address or a host name: 127.0.0.1 is this computer only, 0.0.0.0 every network.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The API key was not saved; it works until Shoehorn quits. %1</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>AttachmentStrip</name>
    <message>
      <source>Attach Images</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Images (*.png *.jpg *.jpeg *.bmp *.gif);;All files (*)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Attach Image…</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Add pictures to the message (or drop image files on the message box, or paste one)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>%1 × %2 pixels, %3 KiB. Click to view.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Remove this image</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>This model cannot see images: its vision projector %1 could not be loaded (%2).</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>This model cannot see images: no vision projector (mmproj) is paired with it. Put its mmproj-*.gguf beside the model, or choose one under Model → Vision Projector.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Reading the image…</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>BackendPicker</name>
    <message>
      <source>This card is seen by two backends. Shoehorn uses the first, as llama.cpp does; the other one can be faster for some cards and models (Auto-tune speed… measures both).</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>%1 (default)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The model runs on: %1</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>ChatController</name>
    <message>
      <source>Image</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>ChatList</name>
    <message>
      <source>Chats</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Search chats</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>New</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Rename</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Delete</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Rename chat</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Title</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Delete chat</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Delete the chat “%1” and all its messages? This cannot be undone.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Rename…</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Delete…</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>ChatView</name>
    <message>
      <source>You</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Assistant</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>System</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Thought for %1 s</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Thinking…</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Thoughts</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Copy</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Image %1 of %2, %3 × %4 pixels. Click to view.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The code block is on the clipboard.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The message is on the clipboard.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Image %1 of %2. Click to view.</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>Composer</name>
    <message>
      <source>Send</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The answer is still being written: your message stays here. Stop or Esc ends the answer.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The pasted image</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Editing your message. Sending it drops the answers that followed.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Cancel editing</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Stop</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>An attached image is still being read: send again in a moment.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>This model cannot see images: the message was not sent.</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>ConversationPanel</name>
    <message>
      <source>Conversation</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>System prompt</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>How the assistant should behave in this chat (optional)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Use for new chats with this model</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Thinking – general</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Thinking – coding</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Instruct – general</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Instruct – reasoning</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Model's suggestion</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Custom</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Preset</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Temperature</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Top-p</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>off</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Top-k</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Min-p</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Presence penalty</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Repeat penalty</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>no limit</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Answer length limit</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Let the model think before answering</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Use the model's suggestion</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>This model's chat template has no thinking switch.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>This model suggests: temperature %1 · top-p %2 · top-k %3 · min-p %4</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>EmptyPage</name>
    <message>
      <source>Drop a .gguf model here or choose a model file</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Shoehorn runs GGUF models locally with llama.cpp, split between GPU and CPU.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Choose a model…</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>ErrorText</name>
    <message>
      <source>Cancelled</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Not enough memory</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Cannot open this model</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Something went wrong</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>No error.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The file is incomplete. Was the download interrupted?</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>A setting has an invalid value.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>llama.cpp could not load the model.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The model or its context does not fit in memory. Try fewer GPU layers or a smaller context.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The operation was cancelled.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The context could not be created.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The model's chat template failed.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The message could not be tokenized.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Generation failed.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>No model is loaded.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The message is longer than the context. Increase the context size or shorten it.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Details: %1</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Out of memory: the %1 buffer needed %2.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Out of memory while loading.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Retrying with the experts of %1 layers on the CPU.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Retrying with %1 layers on the GPU.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Retrying with a context of %1 tokens.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Retrying with a q8_0 KV cache.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The port is already in use by another program, or this address cannot be used.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The local API could not start.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The vision projector (mmproj) could not be loaded or run.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>This model cannot see images: no vision projector (mmproj) is paired with it.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The file does not exist: it may have been moved, renamed or deleted.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The file cannot be read: check that it is yours to read and that the disk is there.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>This is not a GGUF model file: Shoehorn opens llama.cpp's .gguf models.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>This GGUF version is not supported: get the model converted by a current llama.cpp.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The file is damaged or not a valid model: download it again, or get it from another source.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>A part of this split model is missing: put every part in the same folder.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The vision projector (mmproj) does not belong to this model: use the mmproj file that came with it.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The image cannot be used: attach a PNG, JPEG, BMP or GIF picture.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>This file failed the safety check before loading: it would crash or hang Shoehorn, so it was not loaded. Get the model from another source, or one with a fixed chat template.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>A remote machine cannot be reached or used: check that its worker (shoehorn-cli rpc-worker) runs and that this computer may connect to it.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Speculative decoding is off: this model file has no MTP layer (it was converted without it). Choose n-gram or a draft model.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Speculative decoding is off: the model was loaded without its MTP layer. Reload it.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Speculative decoding is off: the draft model %1 cannot be read as a GGUF model.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Speculative decoding is off: the draft model %1 has another vocabulary than this model; a draft model must come from the same family.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Speculative decoding is off: llama.cpp did not start it (%1).</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Retrying without speculative decoding (its draft context needs memory of its own).</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The file cannot be written: check that the folder is yours to write in and that the disk has room.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>its integrity check failed</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The chat history %1 was written by a newer version of Shoehorn (%2). It is open read-only: you can read your chats, but new ones are not saved.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The chat history cannot be created at %1 (%2): chats are not saved.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The chat history %1 cannot be read (%2), and it cannot be moved aside: chats are not saved until it is fixed or removed.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The chat history %1 could not be read (%2). It was moved, unchanged, to %3, and a new history was started.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The chat history %1 could not be read (%2); it was moved to %3, but a new one cannot be created (%4): chats are not saved.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>the new chat</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>the chat's settings</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>the chat's new name</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>deleting the chat</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>the chat's model</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>your message</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>the answer</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>the new version of the answer</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>the edited message</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>deleting the message</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>the version shown</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Speculative decoding is off: the draft model %1 failed the safety check before loading (%2).</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The model is busy: wait until it has finished loading, answering or being tuned.</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>FitExplanation</name>
    <message>
      <source>Open or pick a model to see what fits.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>This file cannot be read.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Everything fits on the GPU: all %1 layers, %2 context, %3 KV cache.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>All %1 layers on the GPU; the experts of the first %2 layers stay in RAM so that %3 context with a %4 KV cache fits.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>%1 of %2 layers on the GPU, the rest in RAM, with %3 context and a %4 KV cache.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>No GPU to plan for: everything runs on the CPU, with %1 context.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>GPU layers</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Experts on CPU</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Context</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>KV cache</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Nothing fits while "%1" is locked. Unlock it and run Auto-fit again.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>This model does not fit in %1, not even with everything in RAM.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Too much for %1: move layers or experts to the CPU, or press Auto-fit.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Not enough RAM for this plan: try a smaller context or put more on the GPU.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Runs on the CPU: %1 of RAM.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Fits: %1 on the GPU, %2 in RAM.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The %1 KV cache stores blocks of %2 values, so it needs a head size that is a multiple of %2; this model's head size is %3. Choose f16 for the KV cache.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>%1 %2 layers (%3 of %4)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Split: %1.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>the remote machine %1</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>the devices %1</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Everything fits on %1: all %2 layers, %3 context, %4 KV cache.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>All %1 layers on %2; the experts of the first %3 layers stay in RAM so that %4 context with a %5 KV cache fits.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>%1 of %2 layers on %3, the rest in RAM, with %4 context and a %5 KV cache.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Fits: %1 on %2, %3 in RAM.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>%1 needs %2 of %3</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>RAM needs %1 of %2</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Does not fit: the %1 KV cache needs a head size that is a multiple of %2 (this model: %3) — choose f16</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source> on %1</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Does not fit%1: %2 — press Auto-fit</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Fits on %1: %2 in RAM, no GPU.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Fits%1: %2 on the GPU, %3 in RAM.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Fits%1: %2 on %3, %4 in RAM.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Speculative decoding takes %1 of GPU memory for its draft context; turned off, that goes to layers or context.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Nothing fits in %1 with the margin kept free on the GPU: lower the margin.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Nothing fits on the GPU with the margin kept free: everything runs on the CPU, with %1 context. Lower the margin to use the GPU.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The GPU has no room for this model: everything runs on the CPU, with %1 context.</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>GaugeBar</name>
    <message>
      <source>Available: %1 of %2</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>%1 of %2 — does not fit</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>%1 of %2</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Loaded: llama.cpp allocated %1, %2%3 (%4%) against the plan</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>%1 MiB</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>%1: %2
%3% of the %4 planned for %5</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Allocated at load: %1 (%2%3%)</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>GaugeStack</name>
    <message>
      <source>weights</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>experts</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>KV cache</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>compute</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>RAM</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>vision projector</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Hover over a part of a bar for its exact size.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>file pages (reclaimable)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>speculation: weights</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>speculation: KV cache</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>speculation: compute</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>ImageViewer</name>
    <message>
      <source>Image, %1 × %2 pixels</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Opening the picture…</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>This picture cannot be read.</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>LanguageMenu</name>
    <message>
      <source>&amp;Language</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>System language</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Language</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Shoehorn will use the new language the next time it starts.</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>LoadStrip</name>
    <message>
      <source>Cancel</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Loading %1…</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Loading %1… %2% · about %3 s left</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>MainWindow</name>
    <message>
      <source>Shoehorn</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Open a GGUF model</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>GGUF models (*.gguf);;All files (*)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>&amp;File</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>&amp;Open Model…</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>&amp;New Chat</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>&amp;Quit</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Stop</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Loading cancelled.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>&amp;View</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Loaded after running out of memory: %1</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Import llama-server presets</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Preset files (*.ini);;All files (*)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>&amp;Import llama-server Presets…</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Cannot import presets</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>This is not a llama-server preset file: %1</source>
      <translation type="unfinished" />
    </message>
    <message numerus="yes">
      <source>Imported settings for %n model(s); they are listed under Models.</source>
      <translation>
        <numerusform>Imported settings for %n model; they are listed under Models.</numerusform>
        <numerusform>Imported settings for %n models; they are listed under Models.</numerusform>
      </translation>
    </message>
    <message numerus="yes">
      <source>%n section(s) without a model file were skipped.</source>
      <translation>
        <numerusform>%n section without a model file was skipped.</numerusform>
        <numerusform>%n sections without a model file were skipped.</numerusform>
      </translation>
    </message>
    <message>
      <source>Line %1 [%2] %3: %4</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Presets imported</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Export chat</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Model not found</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>This chat's model is no longer at %1.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Locate the file to load it and keep chatting.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Locate…</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Locate the model</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>&amp;Export Chat…</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Import Chat…</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>There is nothing to export yet: this chat has no messages.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>chat</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Markdown (*.md);;JSON (*.json)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Cannot export the chat</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Writing %1 failed: %2</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Chat exported to %1</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Import a chat</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Shoehorn chats (*.json);;All files (*)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Wait until the answer is finished.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Cannot import the chat</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>%1 is not a chat Shoehorn can read: %2</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Shoehorn could not save %1 in the chat history: %2</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Chat history not saved</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Chat history</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The answer does not stop: the model is busy where Shoehorn cannot interrupt it (for example a chat template that never finishes). Your chats are saved. Quit Shoehorn?</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The answer does not stop</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>API: %1</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>&amp;Serve</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>&amp;Local API…</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>&amp;Model</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>%1 could not be opened.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>&amp;Remote Machines…</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>API: %1 (paused while auto-tune measures)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>This model's chat template cannot be used (%1): chats use ChatML instead, which may not be the format the model was trained on.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Exporting the chat to %1…</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The chat was imported: it is in the Chats list.</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>MessageFooter</name>
    <message>
      <source>Stopped</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Failed</source>
      <translation type="unfinished" />
    </message>
    <message numerus="yes">
      <source>%n token(s)</source>
      <translation>
        <numerusform>%n token</numerusform>
        <numerusform>%n tokens</numerusform>
      </translation>
    </message>
    <message>
      <source>%1 tok/s</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>first token %1 ms</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>finished</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>stop string</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>token limit reached</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>context full</source>
      <translation type="unfinished" />
    </message>
    <message numerus="yes">
      <source>%n older message(s) left out to fit the context</source>
      <translation>
        <numerusform>%n older message left out to fit the context</numerusform>
        <numerusform>%n older messages left out to fit the context</numerusform>
      </translation>
    </message>
    <message>
      <source>Copy</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Edit</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Regenerate</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Answer</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Delete</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>speculative: %1 of %2 drafted tokens accepted (%3 %)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Failed: %1</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Stopped before the answer began</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>MessageInput</name>
    <message>
      <source>Type a message. Enter sends, Shift+Enter adds a line.</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>ModelBrowser</name>
    <message>
      <source>%1 (missing)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>%1 (new)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Models</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Open a model file…</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Open</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Remove from list</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Add a folder…</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Shoehorn lists every GGUF model in the folder and its subfolders.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Choose a folder with models</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>ModelLibrary</name>
    <message>
      <source>Unsloth Dynamic: important layers keep more bits than the name says.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>16-bit weights: no quantization loss, twice the size of Q8_0.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>32-bit weights: unquantized.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>About %1 bits per weight: fewer bits, smaller and faster, less accurate.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>I-quant: better quality at low bits, often slower on the CPU.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>K-quant: blocks with their own scales; sensitive tensors get more bits.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>XL: the largest, most accurate variant of this size.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>L: a larger, more accurate variant.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>M: the usual balance of size and quality.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>S/XS: smaller and less accurate.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Name</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Architecture</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Parameters</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Quant</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Size</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Context</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Fit</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>%1 (%2 active)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>unreadable</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>fits on the GPU</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>GPU + RAM</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>CPU only</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>too big</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Images</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>not for this model</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>No vision projector (mmproj*.gguf) beside this model</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Vision projectors beside it:
%1</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>off</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>%1 — loading %2%</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>OffloadPanel</name>
    <message>
      <source>Offload</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Plan for</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source> MiB</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>whole card</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Use at most this much of each GPU, as if the card were smaller.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>VRAM budget</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Auto-fit leaves this much of every GPU free.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Auto-fit</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Load</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Copy as llama-server command</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>This computer</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Reload</source>
      <translation type="unfinished" />
    </message>
    <message numerus="yes">
      <source>%n layer(s)</source>
      <translation>
        <numerusform>%n layer</numerusform>
        <numerusform>%n layers</numerusform>
      </translation>
    </message>
    <message>
      <source>%1 experts, %2 active</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>No model selected.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Add…</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Add a what-if machine: a card and RAM size to plan for.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Auto-tune speed…</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Measure the configurations that fit this computer and keep the fastest.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Reading %1…</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>%1 cannot be read: %2</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Margin</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Find the placement and context that fit the machine planned for.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Reload on this computer</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Load on this computer</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The llama-server command is on the clipboard.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Fitting…</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>OffloadTexts</name>
    <message numerus="yes">
      <source>RAM: %1 available of %2 · %n physical core(s)</source>
      <translation>
        <numerusform>RAM: %1 available of %2 · %n physical core</numerusform>
        <numerusform>RAM: %1 available of %2 · %n physical cores</numerusform>
      </translation>
    </message>
    <message>
      <source>The loaded model holds %1 more; plans count it as free.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>RAM: %1 only Shoehorn holds (KV cache, compute, weights read or repacked into memory) · %2 model file pages kept by mmap (the system can reclaim them).</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Checking with llama.cpp's dry run…</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>llama.cpp's dry run failed: %1</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>%1: %2 (plan %3, %4%)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>RAM</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>llama.cpp's dry run — %1</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>on the GPU</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>on the CPU</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Images: %1 (%2, %3).</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>A 1024×1024 picture takes %1 tokens, %2% of the context.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Resident now: Shoehorn holds %1 for it and %2 of the model file is in memory. Memory counts once used, so this stays under the plan until a long prompt has filled the compute buffer; the gauges compare what llama.cpp allocated.</source>
      <translation type="unfinished" />
    </message>
    <message numerus="yes">
      <source>What-if machine %1: no GPU, %2 of RAM, %n core(s).</source>
      <translation>
        <numerusform>What-if machine %1: no GPU, %2 of RAM, %n core.</numerusform>
        <numerusform>What-if machine %1: no GPU, %2 of RAM, %n cores.</numerusform>
      </translation>
    </message>
    <message numerus="yes">
      <source>What-if machine %1: %2 with %3 (planned with %4 free), %5 of RAM (%6 free), %n core(s).</source>
      <translation>
        <numerusform>What-if machine %1: %2 with %3 (planned with %4 free), %5 of RAM (%6 free), %n core.</numerusform>
        <numerusform>What-if machine %1: %2 with %3 (planned with %4 free), %5 of RAM (%6 free), %n cores.</numerusform>
      </translation>
    </message>
    <message>
      <source>What-if machine: planned, not measured.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>RAM %1</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Allocated at load: %1 against the plan.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>llama.cpp's dry run: %1 against the plan.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>%1 · %2: %3 free of %4</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>CPU kernels: %1 (the best of Shoehorn's builds that this CPU runs).</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>No GPU: this build of Shoehorn has no GPU backend (built for the CPU only).</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Vulkan is not installed (the package shoehorn-backend-vulkan).</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>No CPU module was found in %1.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The %1 module did not load: %2.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Vulkan found no GPU: no Vulkan driver for it is installed (mesa-vulkan-drivers for AMD and Intel, the NVIDIA driver for NVIDIA), or there is no GPU.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>%1 found no GPU (no driver for it, or no such GPU).</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>No GPU: Shoehorn runs on the CPU.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>CUDA needs NVIDIA's driver (%1 is not installed); NVIDIA cards can run on Vulkan.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The NVIDIA driver runs CUDA %1; Shoehorn's CUDA module needs CUDA 13 (driver 580 or newer), so NVIDIA cards run on Vulkan.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The CUDA module has no code for %1, so this card runs on Vulkan.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>(also seen as %1: the model uses one of the two, chosen under GPU backend)</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>PlanSummary</name>
    <message>
      <source>Details</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The whole explanation: what the plan does and why, this machine, RAM in its two parts, llama.cpp's dry run.</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>PlanTargets</name>
    <message>
      <source>this computer</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>ProfileDialog</name>
    <message>
      <source>My PC</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Add a machine to plan for</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source> GB</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Name</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>GPU memory</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>RAM</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Physical cores</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Custom</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>PromptProgress</name>
    <message>
      <source>Reading the prompt…</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Writing…</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Reading the prompt: %1% (%2 s left)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Reading the prompt: %1%</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Looking at image %1 of %2…</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Looking at the image…</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>RemoteMachineModel</name>
    <message>
      <source>in use</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>asking…</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>not reachable</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>%1: %2 free of %3</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>%1 ms</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Address</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>State</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Devices</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Round trip</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The most the plan may use on each device of this machine (double-click to change; 0: what the worker reports as free). Set it when the worker may use less than its machine's free memory, or to keep room for other programs there.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>what it reports</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Use at most</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>added</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>answers; joining…</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>RemoteMachinesDialog</name>
    <message>
      <source>Remote Machines</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The worker's protocol has no password and no encryption: reach it through an SSH tunnel (then add 127.0.0.1:PORT), or only on a network you trust.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>host:port, for example 192.168.1.20:50052</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Add</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Test Connection</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Remove</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Other computers can lend their GPUs (or their RAM) to this one: run &lt;code&gt;shoehorn-cli rpc-worker&lt;/code&gt; there and add its address here. Their devices appear in the plan and the gauges like a local GPU as soon as it answers (a model already loaded keeps its devices until it loads again). Double-click "Use at most" to give a machine a limit in MiB: auto-fit then splits the layers so that it stays within it.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Give the machine as host:port, for example 192.168.1.20:50052 (the port its rpc-worker prints).</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>%1 is in the list already.</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>SettingsForm</name>
    <message>
      <source>Lock</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Auto-fit keeps a locked value as it is.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>GPU layers</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Experts on CPU</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Keep the expert weights of the first N layers in RAM (--n-cpu-moe).</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Context</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>K</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>V</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>KV cache</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>q4_0 for K lowers answer quality noticeably; prefer q8_0.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>auto</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>on</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>off</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>CPU threads; auto: one per physical core (-t).</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Threads</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Flash attention</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>micro-batch</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Batch</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>mmap</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>no mmap</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>mlock</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>mmap maps the file (its pages count as RAM); no mmap reads it into memory; mlock keeps it from being swapped out.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Loading</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Speculative</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>GPU backend</source>
      <translation type="unfinished" />
    </message>
    <message numerus="yes">
      <source>More threads than the %n CPU thread(s) this computer runs at once: llama.cpp's threads take turns, and every token waits for the last of them (many times slower). Leave it on auto for one per core.</source>
      <translation>
        <numerusform>More threads than the %n CPU thread this computer runs at once: llama.cpp's threads take turns, and every token waits for the last of them (many times slower). Leave it on auto for one per core.</numerusform>
        <numerusform>More threads than the %n CPU threads this computer runs at once: llama.cpp's threads take turns, and every token waits for the last of them (many times slower). Leave it on auto for one per core.</numerusform>
      </translation>
    </message>
  </context>
  <context>
    <name>SpeculationPicker</name>
    <message>
      <source>Off</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>MTP (the model's own draft layer)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>n-gram (repeats in the chat)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Draft model…</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Speculative decoding: guess several tokens ahead and let the model check them in one step. Faster where the guesses are often right; it costs memory and can be slower on a slow bus. The answer is the same.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Draft model</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>GGUF models (*.gguf)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>This model file has no MTP layer (it was converted without it).</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Auto (as auto-tune measured)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>What Auto-tune speed… measured fastest on this computer: off until it has, and off where speculation was not faster than the run-to-run noise.</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>StatusStrip</name>
    <message>
      <source>context</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Writing · %1 tok/s</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>The model is busy: auto-tune is running.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>context %1 / %2</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>No model loaded</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>%1 · %2 · context %3</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Last answer: %1 tok/s</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>TuningDialog</name>
    <message>
      <source>Run auto-tune</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Cancel</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Apply best</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Auto-tune</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Configuration</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Prompt t/s</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Generation t/s</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Note</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Tokens per second per configuration</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>How each step adds up</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Step</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Speed-up</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Results from %1. Run again after changing hardware or drivers.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Auto-tune measures short runs of the configurations that fit and keeps the fastest. The model cannot chat meanwhile.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Measuring…</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Measuring %1</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Cancelled: showing what was measured.</source>
      <translation type="unfinished" />
    </message>
    <message numerus="yes">
      <source>Done: %n configuration(s) measured.</source>
      <translation>
        <numerusform>Done: %n configuration measured.</numerusform>
        <numerusform>Done: %n configurations measured.</numerusform>
      </translation>
    </message>
    <message>
      <source>Baseline</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>+ GPU layers</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>+ q8_0 KV cache</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>+ more layers (experts in RAM)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>+ flash attention and threads</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>prompt t/s</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>generation t/s</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>best</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>current</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>lower quality (q4_0 K)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>configuration (★ best, • current)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>tokens/s</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Applied: %1</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>does not fit: </source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>= the best found (Apply best)</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>VisionMenu</name>
    <message>
      <source>&amp;Vision Projector</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Choose a Vision Projector</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Vision projectors (mmproj*.gguf *.gguf)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Load a model first</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Reads images with %1 (%2%3)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>, on the CPU</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>%1 could not be loaded: %2</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>This model reads no images</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Automatic: none beside the model</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Automatic: %1</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>None</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Choose File…</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Keep the Projector on the CPU</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Like llama-server's --no-mmproj-offload: saves GPU memory, encodes images more slowly</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Automatic: none of the projectors beside the model fits it</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>%1: for another model</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>main</name>
    <message>
      <source>Chat with large local GGUF models on small GPUs.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>A .gguf model to open.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Import a chat exported as JSON and open it.</source>
      <translation type="unfinished" />
    </message>
  </context>
</TS>
