// Renders Ollama Modelfile templates with Go's text/template the way Ollama's chat endpoint does
// (ollama/ollama template/template.go, Execute and collate): .System is every system message's content joined by
// blank lines, .Messages the conversation with consecutive messages of one role merged (system messages stay in
// it), .Response empty. Reads a JSON array of {"template", "messages": [{"role", "content"}]} on stdin, writes a
// JSON array of the rendered strings (or "ERROR: ..." for a template that does not parse or run).
package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"text/template"
)

type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type Request struct {
	Template string    `json:"template"`
	Messages []Message `json:"messages"`
}

func collate(msgs []Message) (string, []*Message) {
	var system []string
	var collated []*Message
	for i := range msgs {
		if msgs[i].Role == "system" {
			system = append(system, msgs[i].Content)
		}
		if len(collated) > 0 && collated[len(collated)-1].Role == msgs[i].Role {
			collated[len(collated)-1].Content += "\n\n" + msgs[i].Content
		} else {
			collated = append(collated, &msgs[i])
		}
	}
	return strings.Join(system, "\n\n"), collated
}

func main() {
	var reqs []Request
	if err := json.NewDecoder(os.Stdin).Decode(&reqs); err != nil {
		panic(err)
	}
	var out []string
	for _, r := range reqs {
		t, err := template.New("").Parse(r.Template)
		if err != nil {
			out = append(out, "ERROR: "+err.Error())
			continue
		}
		system, messages := collate(r.Messages)
		var b bytes.Buffer
		if err := t.Execute(&b, map[string]any{"System": system, "Messages": messages, "Response": "", "Prompt": ""}); err != nil {
			out = append(out, "ERROR: "+err.Error())
			continue
		}
		out = append(out, b.String())
	}
	json.NewEncoder(os.Stdout).Encode(out)
}
