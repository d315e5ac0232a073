package cli

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"wsapi/app"
)

func deliveriesCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "deliveries", Short: "Inspect and replay webhook deliveries"}
	var webhookID, status string
	var take int
	list := &cobra.Command{
		Use: "list", Short: "List webhook deliveries, newest first", Args: cobra.NoArgs,
		RunE: e.withService(func(cmd *cobra.Command, _ []string, svc *app.Service) error {
			l, err := svc.ListDeliveries(cmd.Context(), "", webhookID, status, app.Page{Page: 1, Take: take})
			if err != nil {
				return err
			}
			rows := [][]string{{"ID", "WEBHOOK", "EVENT", "TYPE", "STATUS", "ATTEMPTS", "NEXT ATTEMPT", "CREATED"}}
			for _, d := range l.Items {
				rows = append(rows, []string{d.ID, d.WebhookID, d.EventID, d.EventType, d.Status,
					strconv.Itoa(d.AttemptsCount), d.NextAttemptAt.String(), d.CreatedAt.String()})
			}
			text := table(rows)
			if l.Total > len(l.Items) {
				text += fmt.Sprintf("(%d of %d shown; use --take)\n", len(l.Items), l.Total)
			}
			return e.print(l.Items, text)
		}),
	}
	list.Flags().StringVar(&webhookID, "webhook", "", "only this endpoint's deliveries")
	list.Flags().StringVar(&status, "status", "", "PENDING, SUCCEEDED or FAILED")
	list.Flags().IntVar(&take, "take", 100, "how many to show (1..100)")

	replay := &cobra.Command{
		Use: "replay DELIVERY_ID", Short: "Queue a delivery's event again (same event id, new delivery)", Args: cobra.ExactArgs(1),
		RunE: e.withService(func(cmd *cobra.Command, args []string, svc *app.Service) error {
			d, err := svc.ReplayDelivery(cmd.Context(), "", "", args[0])
			if err != nil {
				return err
			}
			return e.print(d, fmt.Sprintf("queued %s (event %s) for %s\n", d.ID, d.EventID, d.WebhookID))
		}),
	}
	cmd.AddCommand(list, replay)
	return cmd
}
